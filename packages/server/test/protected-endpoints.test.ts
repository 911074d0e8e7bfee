import { AideApi } from "@aide/server"
import { HttpApi } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Authentication } from "../src/api/Security.js"
import { request, startServer, type TestServer } from "./support/server.js"

interface Endpoint {
  readonly method: string
  readonly path: string
  readonly protected: boolean
}

/** Every endpoint of the contract, and whether the `Authentication` middleware guards it: from the HttpApi itself. */
const endpoints: ReadonlyArray<Endpoint> = (() => {
  const found: Array<Endpoint> = []
  HttpApi.reflect(AideApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) =>
      found.push({ method: endpoint.method, path: endpoint.path, protected: middleware.has(Authentication as never) }),
  })
  return found
})()

/** A concrete URL for a path with parameters (`:id` → a made-up id). */
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, "00000000-0000-4000-8000-000000000000")

const protectedEndpoints = endpoints.filter((endpoint) => endpoint.protected)

describe("every protected endpoint of the HttpApi answers 401 without a token", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("only SPEC's public endpoints go without the Authentication middleware", () => {
    const unguarded = endpoints.filter((endpoint) => !endpoint.protected).map((e) => `${e.method} ${e.path}`)
    expect(unguarded.sort()).toEqual(
      [
        "GET /",
        "POST /api/auth/setup",
        "POST /api/auth/login",
        "POST /api/auth/refresh",
        // The owner's browser, back from an authorization server: the single-use state is the credential.
        "GET /api/mcp-servers/oauth/callback",
      ].sort(),
    )
    expect(protectedEndpoints.length).toBeGreaterThan(30)
  })

  it.each(protectedEndpoints.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint] as const))(
    "%s",
    async (_name, endpoint) => {
      const withBody = !["GET", "HEAD", "DELETE", "OPTIONS"].includes(endpoint.method)
      const answer = await request(`${server.url}${concrete(endpoint.path)}`, {
        method: endpoint.method,
        ...(withBody ? { body: {} } : {}),
      })
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: { error: "unauthorized" } })
    },
  )
})

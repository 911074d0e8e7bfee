import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { RateLimiter } from "@aide/kernel"
import { Effect, Layer } from "effect"
import * as Jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

/** SPEC "Authentication" 1: the only operations anyone may call without a token. */
const publicOperations = new Set([
  "GET /",
  "POST /api/auth/setup",
  "POST /api/auth/login",
  "POST /api/auth/refresh",
  // The owner's browser, back from an MCP server's authorization server: the single-use state is the credential.
  "GET /api/mcp-servers/oauth/callback",
])

/** The protected auth routes of SPEC "Endpoints", as OpenAPI writes them. */
const specProtectedAuthRoutes = [
  "POST /api/auth/logout",
  "POST /api/auth/change-password",
  "GET /api/auth/sessions",
  "DELETE /api/auth/sessions",
  "DELETE /api/auth/sessions/{id}",
]

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

interface Route {
  readonly method: string
  readonly path: string
  readonly hasBody: boolean
}

/** Every operation of the served OpenAPI document that is not public: new routes are covered as they appear. */
const protectedRoutes = async (server: TestServer): Promise<ReadonlyArray<Route>> => {
  const document = await request(`${server.url}/api/openapi.json`)
  expect(document.status).toBe(200)
  const routes: Array<Route> = []
  for (const [path, item] of Object.entries<Record<string, { readonly requestBody?: unknown }>>(document.body.paths)) {
    for (const method of httpMethods) {
      const operation = item[method]
      if (operation === undefined || publicOperations.has(`${method.toUpperCase()} ${path}`)) continue
      routes.push({ method: method.toUpperCase(), path, hasBody: operation.requestBody !== undefined })
    }
  }
  return routes
}

/**
 * Rate limits are not what this suite is about: change-password counts requests before it
 * checks the token, so with the real limiter the fourth forged token would meet a 429.
 */
const unlimited = Layer.succeed(
  RateLimiter.RateLimiter,
  RateLimiter.RateLimiter.of({
    consume: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
    peek: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
  }),
)

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
const nowSeconds = () => Math.floor(Date.now() / 1000)

/** The claims the server puts in an access token (AccessTokens.ts), valid for ten minutes. */
const validClaims = (sid: string): Jose.JWTPayload => ({
  sid,
  iss: "aide",
  aud: "aide-api",
  sub: "owner",
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
  jti: randomUUID(),
})

const sign = (
  claims: Jose.JWTPayload,
  key: Uint8Array,
  header: Jose.JWTHeaderParameters = { alg: "HS256", typ: "at+jwt" },
) => new Jose.SignJWT(claims).setProtectedHeader(header).sign(key)

const without = (claims: Jose.JWTPayload, name: string): Jose.JWTPayload =>
  Object.fromEntries(Object.entries(claims).filter(([key]) => key !== name))

/** What each forged credential is built from: the server's real secret, tokens and sessions. */
interface Fixture {
  readonly server: TestServer
  readonly routes: ReadonlyArray<Route>
  /** The server's HMAC key, as kept in `<dataDir>/jwt-secret` (base64url text). */
  readonly secret: Uint8Array
  readonly tokens: { readonly token: string; readonly refreshToken: string }
  readonly sessionId: string
  readonly revokedSessionId: string
  readonly revokedSessionToken: string
}

interface Credential {
  readonly name: string
  /** The `Authorization` header to send; undefined sends none. */
  readonly authorization: (fixture: Fixture) => Promise<string | undefined> | string | undefined
}

const bearer = (token: string) => `Bearer ${token}`

const invalidCredentials: ReadonlyArray<Credential> = [
  { name: "no Authorization header", authorization: () => undefined },
  { name: "an empty Bearer token", authorization: () => "Bearer " },
  { name: "the Bearer scheme with nothing after it", authorization: () => "Bearer" },
  { name: "a Bearer token of spaces", authorization: () => "Bearer    " },
  { name: "a valid access token under the Basic scheme", authorization: ({ tokens }) => `Basic ${tokens.token}` },
  {
    name: "Basic credentials with the right password",
    authorization: () => `Basic ${Buffer.from(`owner:${password}`).toString("base64")}`,
  },
  { name: "a valid access token without a scheme", authorization: ({ tokens }) => tokens.token },
  { name: "a string that is not a JWT", authorization: () => bearer("not-a-token") },
  { name: "three empty JWT segments", authorization: () => bearer("..") },
  {
    name: "a real token whose payload was changed (longer expiry)",
    authorization: ({ tokens }) => {
      const [header, payload, signature] = tokens.token.split(".")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"))
      return bearer(`${header}.${base64url({ ...claims, exp: claims.exp + 86_400 })}.${signature}`)
    },
  },
  {
    name: "a real token whose payload was changed (another session)",
    authorization: ({ tokens }) => {
      const [header, payload, signature] = tokens.token.split(".")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"))
      return bearer(`${header}.${base64url({ ...claims, sid: randomUUID() })}.${signature}`)
    },
  },
  {
    name: "a real token whose signature was changed",
    authorization: ({ tokens }) => {
      const [header, payload, signature] = tokens.token.split(".")
      // The first character carries six whole bits of the MAC: changing it always changes the MAC.
      const flipped = (signature![0] === "A" ? "B" : "A") + signature!.slice(1)
      return bearer(`${header}.${payload}.${flipped}`)
    },
  },
  {
    name: "a real token with its signature removed",
    authorization: ({ tokens }) => bearer(`${tokens.token.split(".").slice(0, 2).join(".")}.`),
  },
  {
    name: "an unsigned token (alg none)",
    authorization: ({ sessionId }) =>
      bearer(`${base64url({ alg: "none", typ: "at+jwt" })}.${base64url(validClaims(sessionId))}.`),
  },
  {
    name: "a token signed with another key",
    authorization: async ({ sessionId }) => bearer(await sign(validClaims(sessionId), randomBytes(32))),
  },
  {
    name: "a token signed with the server's key but HS512",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign(validClaims(sessionId), secret, { alg: "HS512", typ: "at+jwt" })),
  },
  {
    name: "a token for another audience",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign({ ...validClaims(sessionId), aud: "another-api" }, secret)),
  },
  {
    name: "a token without an audience",
    authorization: async ({ sessionId, secret }) => bearer(await sign(without(validClaims(sessionId), "aud"), secret)),
  },
  {
    name: "a token from another issuer",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign({ ...validClaims(sessionId), iss: "someone-else" }, secret)),
  },
  {
    name: "a token of another type (typ JWT)",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign(validClaims(sessionId), secret, { alg: "HS256", typ: "JWT" })),
  },
  {
    name: "a token without a type",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign(validClaims(sessionId), secret, { alg: "HS256" })),
  },
  {
    name: "an expired token",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign({ ...validClaims(sessionId), iat: nowSeconds() - 960, exp: nowSeconds() - 60 }, secret)),
  },
  {
    name: "a token without an expiry",
    authorization: async ({ sessionId, secret }) => bearer(await sign(without(validClaims(sessionId), "exp"), secret)),
  },
  {
    name: "a token that is not valid yet (nbf in the future)",
    authorization: async ({ sessionId, secret }) =>
      bearer(await sign({ ...validClaims(sessionId), nbf: nowSeconds() + 300 }, secret)),
  },
  {
    name: "a token without a session id",
    authorization: async ({ sessionId, secret }) => bearer(await sign(without(validClaims(sessionId), "sid"), secret)),
  },
  {
    name: "a token whose session id is not a string",
    authorization: async ({ secret }) => bearer(await sign({ ...validClaims("x"), sid: 1 }, secret)),
  },
  { name: "a refresh token as the Bearer token", authorization: ({ tokens }) => bearer(tokens.refreshToken) },
  {
    name: "a correctly signed token for an unknown session",
    authorization: async ({ secret }) => bearer(await sign(validClaims(randomUUID()), secret)),
  },
  {
    name: "a correctly signed token for a revoked session",
    authorization: async ({ revokedSessionId, secret }) => bearer(await sign(validClaims(revokedSessionId), secret)),
  },
  {
    name: "the server's own token of a revoked session",
    authorization: (fixture) => bearer(fixture.revokedSessionToken),
  },
]

/** Calls every route with `authorization`; path parameters name no existing resource. */
const answers = async (fixture: Fixture, authorization: string | undefined) =>
  Promise.all(
    fixture.routes.map(async (route) => {
      const response = await request(`${fixture.server.url}${route.path.replace(/\{[^}]+\}/g, randomUUID())}`, {
        method: route.method,
        // An empty object is no valid body: auth must answer before the body is ever read.
        ...(route.hasBody ? { body: {} } : {}),
        ...(authorization === undefined ? {} : { headers: { authorization } }),
      })
      return { route: `${route.method} ${route.path}`, status: response.status, body: response.body }
    }),
  )

const unauthorizedEverywhere = (fixture: Fixture) =>
  fixture.routes.map((route) => ({
    route: `${route.method} ${route.path}`,
    status: 401,
    body: { error: "unauthorized" },
  }))

describe.each(storageKinds)("protected routes refuse missing and invalid access tokens (%s)", (storage) => {
  let fixture: Fixture
  beforeAll(async () => {
    const server = await startServer({ storage, kernel: { rateLimiter: unlimited } })
    const tokens = await setup(server)
    const secret = new Uint8Array(
      Buffer.from(readFileSync(join(server.dataDir, "jwt-secret"), "utf8").trim(), "base64url"),
    )
    const second = await request(`${server.url}/api/auth/login`, { body: { password } })
    expect(second.status).toBe(200)
    const revokedSessionId = String(Jose.decodeJwt(second.body.token).sid)
    const revoked = await request(`${server.url}/api/auth/sessions/${revokedSessionId}`, {
      method: "DELETE",
      token: tokens.token,
    })
    expect(revoked.status).toBe(200)
    fixture = {
      server,
      routes: await protectedRoutes(server),
      secret,
      tokens,
      sessionId: String(Jose.decodeJwt(tokens.token).sid),
      revokedSessionId,
      revokedSessionToken: second.body.token,
    }
  })
  afterAll(() => fixture.server.close())

  it("the routes under test come from the OpenAPI document and include every protected auth route", () => {
    const listed = fixture.routes.map((route) => `${route.method} ${route.path}`)
    expect(listed).toEqual(expect.arrayContaining(specProtectedAuthRoutes))
    expect(listed.filter((route) => publicOperations.has(route))).toEqual([])
  })

  it("accepts the server's own access token and one signed the same way with its key (control)", async () => {
    const sessions = `${fixture.server.url}/api/auth/sessions`
    expect((await request(sessions, { token: fixture.tokens.token })).status).toBe(200)
    const selfSigned = await sign(validClaims(fixture.sessionId), fixture.secret)
    expect((await request(sessions, { token: selfSigned })).status).toBe(200)
    expect((await request(sessions, { headers: { authorization: `bearer ${fixture.tokens.token}` } })).status).toBe(200)
  })

  it.each(invalidCredentials)("every protected route answers 401 unauthorized to $name", async (credential) => {
    const authorization = await credential.authorization(fixture)
    expect(await answers(fixture, authorization)).toEqual(unauthorizedEverywhere(fixture))
  })

  it("still accepts the valid token after all the forgeries (nothing was revoked by them)", async () => {
    expect((await request(`${fixture.server.url}/api/auth/sessions`, { token: fixture.tokens.token })).status).toBe(200)
  })
})

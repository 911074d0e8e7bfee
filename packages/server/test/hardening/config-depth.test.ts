import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "../support/server.js"

/**
 * Issue 9, item 1: the config document itself is bounded in depth (32 levels), below the HTTP
 * edge's bound for every JSON body, so a patch the edge lets through is still a clear 400.
 */

const nested = (depth: number) => {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = { a: value }
  return value
}

describe("PATCH /api/config depth", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer()
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it("a plugin config nesting the document deeper than 32 levels answers 400 naming where; nothing is stored", async () => {
    const refused = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { plugins: { p: nested(40) } },
    })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({ error: "plugins.p.a.…: nests more than 32 levels deep" })
    const read = await request(`${server.url}/api/config`, { token })
    expect(read.body.plugins).toEqual({})
    const accepted = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { plugins: { p: nested(29) } },
    })
    expect(accepted.status).toBe(200)
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

describe.each(storageKinds)("GET / (%s)", (storage) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ storage })
  })
  afterAll(() => server.close())

  it("reports the service and that no password is set up yet", async () => {
    const response = await request(server.url)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      name: "aide",
      version: expect.any(String),
      runtime: "node",
      serverless: false,
      auth: { setup: false, authenticated: false },
    })
  })

  it("says setup and authenticated once a valid token is sent", async () => {
    const tokens = await setup(server)
    const anonymous = await request(server.url)
    expect(anonymous.body.auth).toEqual({ setup: true, authenticated: false })
    const signedIn = await request(server.url, { token: tokens.token })
    expect(signedIn.body.auth).toEqual({ setup: true, authenticated: true })
    const badToken = await request(server.url, { token: "not-a-token" })
    expect(badToken.status).toBe(200)
    expect(badToken.body.auth.authenticated).toBe(false)
  })
})

import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { HostAuth } from "@aide/kernel"
import * as Jose from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, startServer, type TestServer } from "./support/server.js"

/**
 * The server with `HostAuth`: the host application's identity provider publishes a JWKS (served
 * here over a real socket), Aide accepts its tokens and keeps no password of its own.
 */
describe("HostAuth: the host app's JWTs through the HTTP API", () => {
  const issuer = "https://id.example.test"
  let jwksServer: Http.Server
  let server: TestServer
  let signingKey: CryptoKey
  let jwksRequests = 0

  const hostToken = (key: CryptoKey, claims: Jose.JWTPayload = { sub: "owner", sid: "laptop" }) =>
    new Jose.SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "host-1" })
      .setIssuer(issuer)
      .setAudience("aide")
      .setExpirationTime("5m")
      .sign(key)

  beforeAll(async () => {
    const { publicKey, privateKey } = await Jose.generateKeyPair("ES256")
    signingKey = privateKey
    const jwk = { ...(await Jose.exportJWK(publicKey)), kid: "host-1", alg: "ES256", use: "sig" }
    jwksServer = Http.createServer((_request, response) => {
      jwksRequests++
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ keys: [jwk] }))
    })
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve))
    const { port } = jwksServer.address() as AddressInfo
    server = await startServer({
      kernel: {
        authLayer: HostAuth.layer({ jwksUrl: `http://127.0.0.1:${port}/jwks.json`, issuer, audience: "aide" }),
      },
    })
  })

  afterAll(async () => {
    await server?.close()
    await new Promise((resolve) => jwksServer?.close(resolve))
  })

  it("a token of the host's key opens the API; another key's, or none, is 401", async () => {
    const threads = await request(`${server.url}/api/threads`, { token: await hostToken(signingKey) })
    expect(threads.status).toBe(200)
    expect(jwksRequests).toBeGreaterThan(0)
    const { privateKey: stranger } = await Jose.generateKeyPair("ES256")
    const forged = await request(`${server.url}/api/threads`, { token: await hostToken(stranger) })
    expect(forged.status).toBe(401)
    expect((await request(`${server.url}/api/threads`)).status).toBe(401)
    const noSubject = await request(`${server.url}/api/threads`, { token: await hostToken(signingKey, {}) })
    expect(noSubject.status).toBe(401)
  })

  it("a token without exp is 401 with the usual body; logout answers but the token stays valid until its exp", async () => {
    const endless = await new Jose.SignJWT({ sub: "owner", sid: "laptop" })
      .setProtectedHeader({ alg: "ES256", kid: "host-1" })
      .setIssuer(issuer)
      .setAudience("aide")
      .setIssuedAt()
      .sign(signingKey)
    expect(await request(`${server.url}/api/threads`, { token: endless })).toMatchObject({
      status: 401,
      body: { error: "unauthorized" },
    })
    // The host owns its tokens' lifetime: Aide cannot revoke one (docs/auth.md).
    const token = await hostToken(signingKey)
    expect((await request(`${server.url}/api/auth/logout`, { token, body: {} })).status).toBe(200)
    expect((await request(`${server.url}/api/threads`, { token })).status).toBe(200)
  })

  it("password routes answer 403 auth_external; the session list is empty", async () => {
    const token = await hostToken(signingKey)
    const refused = [
      await request(`${server.url}/api/auth/setup`, { body: { password: "correct horse battery staple" } }),
      await request(`${server.url}/api/auth/login`, { body: { password: "correct horse battery staple" } }),
      await request(`${server.url}/api/auth/refresh`, { body: { refreshToken: "aide_rt_anything" } }),
      await request(`${server.url}/api/auth/change-password`, {
        token,
        body: { currentPassword: "correct horse battery staple", newPassword: "another long password" },
      }),
    ]
    expect(refused.map((response) => [response.status, response.body])).toEqual(
      Array(4).fill([403, { error: "auth_external" }]),
    )
    const sessions = await request(`${server.url}/api/auth/sessions`, { token })
    expect(sessions).toMatchObject({ status: 200, body: { sessions: [] } })
  })
})

import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { password, request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const newPassword = "a brand new passphrase"

interface Pair {
  readonly token: string
  readonly refreshToken: string
}

const changePassword = (server: TestServer, token: string, body: unknown) =>
  request(`${server.url}/api/auth/change-password`, { method: "POST", token, body })

const login = (server: TestServer, pw: string) => request(`${server.url}/api/auth/login`, { body: { password: pw } })

const refresh = (server: TestServer, refreshToken: string) =>
  request(`${server.url}/api/auth/refresh`, { body: { refreshToken } })

const listSessions = (server: TestServer, token: string) => request(`${server.url}/api/auth/sessions`, { token })

describe.each(storageKinds)("POST /api/auth/change-password (%s)", (storage) => {
  let server: TestServer
  let tokens: Pair
  beforeEach(async () => {
    server = await startServer({ storage })
    tokens = await setup(server)
  })
  afterEach(() => server.close())

  it("answers 401 invalid_credentials for a wrong current password, and changes nothing", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: `${password}?`, newPassword })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "invalid_credentials" })
    expect((await listSessions(server, tokens.token)).status).toBe(200)
    expect((await login(server, password)).status).toBe(200)
    expect((await login(server, newPassword)).status).toBe(401)
  })

  it("rejects a new password shorter than 8 characters with 400 and a message, and changes nothing", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: password, newPassword: "1234567" })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect((await listSessions(server, tokens.token)).status).toBe(200)
    expect((await login(server, password)).status).toBe(200)
  })

  it("returns a new token pair that works", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: password, newPassword })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: expect.stringMatching(isoTimestamp),
      refreshExpiresAt: expect.stringMatching(isoTimestamp),
    })
    expect(response.headers.get("cache-control")).toBe("no-store")
    const sessions = await listSessions(server, response.body.token)
    expect(sessions.status).toBe(200)
    expect(sessions.body.sessions).toEqual([expect.objectContaining({ current: true })])
    expect((await refresh(server, response.body.refreshToken)).status).toBe(200)
  })

  it("invalidates every session: all old access and refresh tokens fail", async () => {
    const phone: Pair = (await login(server, password)).body
    const tablet: Pair = (await login(server, password)).body
    const rotated: Pair = (await refresh(server, tablet.refreshToken)).body
    const changed = await changePassword(server, tokens.token, { currentPassword: password, newPassword })
    expect(changed.status).toBe(200)

    for (const old of [tokens, phone, tablet, rotated]) {
      const response = await listSessions(server, old.token)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
    }
    for (const old of [tokens, phone, rotated]) expect((await refresh(server, old.refreshToken)).status).toBe(401)
    expect((await listSessions(server, changed.body.token)).body.sessions).toHaveLength(1)
  })

  it("replaces the password: the old one no longer logs in, the new one does", async () => {
    expect((await changePassword(server, tokens.token, { currentPassword: password, newPassword })).status).toBe(200)
    const old = await login(server, password)
    expect(old.status).toBe(401)
    expect(old.body).toEqual({ error: "invalid_credentials" })
    expect((await login(server, newPassword)).status).toBe(200)
  })

  it.each([
    { name: "no newPassword", body: { currentPassword: password } },
    { name: "no currentPassword", body: { newPassword } },
    { name: "a numeric newPassword", body: { currentPassword: password, newPassword: 123456789 } },
    { name: "a null currentPassword", body: { currentPassword: null, newPassword } },
    { name: "a body that is not JSON", body: "currentPassword=x&newPassword=y" },
    { name: "a JSON array body", body: [password, newPassword] },
  ])("answers 400 { error: string }, never 500, for $name", async ({ body }) => {
    const response = await changePassword(server, tokens.token, body)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect((await login(server, password)).status).toBe(200)
  })
})

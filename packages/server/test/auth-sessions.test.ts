import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { password, request, startServer, storageKinds, type TestServer } from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const sevenDays = 7 * 24 * 60 * 60_000
const laptop = "AideTest-Laptop/1.0 (X11; Linux x86_64)"
const phone = "AideTest-Phone/2.0 (iPhone)"

interface Pair {
  readonly token: string
  readonly refreshToken: string
}

/** Sets the password up from the laptop and signs the phone in: two sessions. */
const twoDevices = async (server: TestServer): Promise<{ laptop: Pair; phone: Pair }> => {
  const first = await request(`${server.url}/api/auth/setup`, {
    body: { password },
    headers: { "user-agent": laptop },
  })
  const second = await request(`${server.url}/api/auth/login`, { body: { password }, headers: { "user-agent": phone } })
  expect([first.status, second.status]).toEqual([201, 200])
  return { laptop: first.body, phone: second.body }
}

const listSessions = (server: TestServer, token: string) => request(`${server.url}/api/auth/sessions`, { token })

const sessionIdOf = async (server: TestServer, token: string): Promise<string> =>
  (await listSessions(server, token)).body.sessions.find((session: any) => session.current).id

const revoke = (server: TestServer, token: string, id: string) =>
  request(`${server.url}/api/auth/sessions/${encodeURIComponent(id)}`, { method: "DELETE", token })

const expectSignedOut = async (server: TestServer, pair: Pair) => {
  const response = await listSessions(server, pair.token)
  expect(response.status).toBe(401)
  expect(response.body).toEqual({ error: "unauthorized" })
  const refreshed = await request(`${server.url}/api/auth/refresh`, { body: { refreshToken: pair.refreshToken } })
  expect(refreshed.status).toBe(401)
}

const expectSignedIn = async (server: TestServer, pair: Pair) => {
  expect((await listSessions(server, pair.token)).status).toBe(200)
}

describe.each(storageKinds)("POST /api/auth/logout (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("revokes the current session: its access and refresh tokens fail at once", async () => {
    const { laptop } = await twoDevices(server)
    await expectSignedIn(server, laptop)
    const response = await request(`${server.url}/api/auth/logout`, { method: "POST", token: laptop.token })
    expect(response.status).toBe(200)
    await expectSignedOut(server, laptop)
  })

  it("leaves other sessions signed in", async () => {
    const devices = await twoDevices(server)
    await request(`${server.url}/api/auth/logout`, { method: "POST", token: devices.laptop.token })
    const remaining = await listSessions(server, devices.phone.token)
    expect(remaining.status).toBe(200)
    expect(remaining.body.sessions).toHaveLength(1)
    expect(remaining.body.sessions[0]).toMatchObject({ userAgent: phone, current: true })
    const refreshed = await request(`${server.url}/api/auth/refresh`, {
      body: { refreshToken: devices.phone.refreshToken },
    })
    expect(refreshed.status).toBe(200)
  })
})

describe.each(storageKinds)("GET /api/auth/sessions (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("lists every active session with id, createdAt, expiresAt, userAgent, ip and current", async () => {
    const before = Date.now()
    const devices = await twoDevices(server)
    const response = await listSessions(server, devices.laptop.token)
    expect(response.status).toBe(200)
    expect(Object.keys(response.body)).toEqual(["sessions"])
    const sessions: Array<any> = response.body.sessions
    expect(sessions).toHaveLength(2)
    for (const session of sessions) {
      expect(session).toEqual({
        id: expect.any(String),
        createdAt: expect.stringMatching(isoTimestamp),
        expiresAt: expect.stringMatching(isoTimestamp),
        userAgent: expect.any(String),
        ip: "127.0.0.1",
        current: expect.any(Boolean),
      })
      expect(Date.parse(session.createdAt)).toBeGreaterThanOrEqual(before - 1_000)
      expect(Date.parse(session.createdAt)).toBeLessThanOrEqual(Date.now())
      expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(sevenDays)
    }
    expect(sessions.map((session) => session.userAgent).sort()).toEqual([laptop, phone].sort())
    expect(new Set(sessions.map((session) => session.id)).size).toBe(2)
  })

  it("marks current only the session making the request", async () => {
    const devices = await twoDevices(server)
    const fromLaptop = (await listSessions(server, devices.laptop.token)).body.sessions
    expect(fromLaptop.filter((session: any) => session.current)).toEqual([
      expect.objectContaining({ userAgent: laptop }),
    ])
    const fromPhone = (await listSessions(server, devices.phone.token)).body.sessions
    expect(fromPhone.filter((session: any) => session.current)).toEqual([expect.objectContaining({ userAgent: phone })])
  })

  it("no longer lists a session once it is revoked", async () => {
    const devices = await twoDevices(server)
    await request(`${server.url}/api/auth/logout`, { method: "POST", token: devices.phone.token })
    const sessions = (await listSessions(server, devices.laptop.token)).body.sessions
    expect(sessions).toEqual([expect.objectContaining({ userAgent: laptop, current: true })])
  })

  it("records the forwarded client address when the proxy is trusted", async () => {
    const proxied = await startServer({ storage, trustProxy: { _tag: "Hops", hops: 2 } })
    try {
      const tokens = await request(`${proxied.url}/api/auth/setup`, {
        body: { password },
        headers: { "x-forwarded-for": "203.0.113.7, 10.0.0.2" },
      })
      const sessions = (await listSessions(proxied, tokens.body.token)).body.sessions
      expect(sessions).toEqual([expect.objectContaining({ ip: "203.0.113.7" })])
    } finally {
      await proxied.close()
    }
  })

  it("ignores X-Forwarded-For for the client address when no proxy is trusted", async () => {
    const tokens = await request(`${server.url}/api/auth/setup`, {
      body: { password },
      headers: { "x-forwarded-for": "203.0.113.7" },
    })
    const sessions = (await listSessions(server, tokens.body.token)).body.sessions
    expect(sessions).toEqual([expect.objectContaining({ ip: "127.0.0.1" })])
  })
})

describe.each(storageKinds)("DELETE /api/auth/sessions/:id (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("revokes another session: success, loggedOut false, and that session's tokens fail", async () => {
    const devices = await twoDevices(server)
    const phoneId = await sessionIdOf(server, devices.phone.token)
    const response = await revoke(server, devices.laptop.token, phoneId)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true, loggedOut: false })
    await expectSignedOut(server, devices.phone)
    await expectSignedIn(server, devices.laptop)
  })

  it("revokes the caller's own session: loggedOut true, and the caller's token fails", async () => {
    const devices = await twoDevices(server)
    const laptopId = await sessionIdOf(server, devices.laptop.token)
    const response = await revoke(server, devices.laptop.token, laptopId)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ success: true, loggedOut: true })
    await expectSignedOut(server, devices.laptop)
    await expectSignedIn(server, devices.phone)
  })

  it("answers 404 session_not_found for an id that does not exist", async () => {
    const devices = await twoDevices(server)
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-session"]) {
      const response = await revoke(server, devices.laptop.token, id)
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "session_not_found" })
    }
    await expectSignedIn(server, devices.laptop)
    await expectSignedIn(server, devices.phone)
  })

  it("answers 404 session_not_found for a session already revoked", async () => {
    const devices = await twoDevices(server)
    const phoneId = await sessionIdOf(server, devices.phone.token)
    expect((await revoke(server, devices.laptop.token, phoneId)).status).toBe(200)
    const again = await revoke(server, devices.laptop.token, phoneId)
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ error: "session_not_found" })
  })
})

describe.each(storageKinds)("DELETE /api/auth/sessions (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("revokes every session, the caller's included", async () => {
    const devices = await twoDevices(server)
    const response = await request(`${server.url}/api/auth/sessions`, { method: "DELETE", token: devices.laptop.token })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ success: true })
    await expectSignedOut(server, devices.laptop)
    await expectSignedOut(server, devices.phone)
  })

  it("leaves the password in place: signing in again opens one fresh session", async () => {
    const devices = await twoDevices(server)
    await request(`${server.url}/api/auth/sessions`, { method: "DELETE", token: devices.phone.token })
    const again = await request(`${server.url}/api/auth/login`, { body: { password } })
    expect(again.status).toBe(200)
    const sessions = (await listSessions(server, again.body.token)).body.sessions
    expect(sessions).toEqual([expect.objectContaining({ current: true })])
  })
})

/** Every protected auth route, with a body where it takes one. */
const protectedRoutes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly body?: unknown }> = [
  { method: "POST", path: "/api/auth/logout" },
  {
    method: "POST",
    path: "/api/auth/change-password",
    body: { currentPassword: password, newPassword: "a brand new password" },
  },
  { method: "GET", path: "/api/auth/sessions" },
  { method: "DELETE", path: "/api/auth/sessions/00000000-0000-4000-8000-000000000000" },
  { method: "DELETE", path: "/api/auth/sessions" },
]

/** Ways of not presenting a valid access token. */
const badCredentials: ReadonlyArray<{
  readonly name: string
  readonly headers: (valid: Pair) => Record<string, string>
}> = [
  { name: "without an Authorization header", headers: () => ({}) },
  { name: "with an empty Bearer token", headers: () => ({ authorization: "Bearer " }) },
  { name: "with a malformed token", headers: () => ({ authorization: "Bearer not-a-token" }) },
  {
    name: "with a refresh token instead of an access token",
    headers: (valid) => ({ authorization: `Bearer ${valid.refreshToken}` }),
  },
  {
    name: "with Basic credentials",
    headers: () => ({ authorization: `Basic ${Buffer.from(`owner:${password}`).toString("base64")}` }),
  },
  {
    name: "with a token signed by another key",
    headers: () => ({
      authorization:
        "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzaWQiOiJ4IiwiZXhwIjo0MTAyNDQ0ODAwLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJl",
    }),
  },
]

describe.each(storageKinds)("protected auth routes (%s)", (storage) => {
  let server: TestServer
  let valid: Pair
  beforeEach(async () => {
    server = await startServer({ storage })
    valid = (await twoDevices(server)).laptop
  })
  afterEach(() => server.close())

  it.each(badCredentials)("every one answers 401 unauthorized $name", async ({ headers }) => {
    for (const route of protectedRoutes) {
      const response = await request(`${server.url}${route.path}`, {
        method: route.method,
        body: route.body,
        headers: headers(valid),
      })
      expect(response.status, `${route.method} ${route.path}`).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
    }
    // Nothing happened: the password and the session are untouched.
    await expectSignedIn(server, valid)
    expect((await request(`${server.url}/api/auth/login`, { body: { password } })).status).toBe(200)
  })
})

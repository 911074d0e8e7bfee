import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { password, request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const accessTtl = 15 * 60_000
const refreshTtl = 7 * 24 * 60 * 60_000
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** SPEC "Token pair": four strings; expiries 15 minutes and 7 days after an issue between `before` and now. */
const expectTokenPair = (body: any, before: number) => {
  expect(body).toEqual({
    token: expect.any(String),
    refreshToken: expect.any(String),
    expiresAt: expect.stringMatching(isoTimestamp),
    refreshExpiresAt: expect.stringMatching(isoTimestamp),
  })
  const after = Date.now()
  // Access tokens carry whole-second expiries, so allow a second of rounding down.
  expect(Date.parse(body.expiresAt)).toBeGreaterThanOrEqual(before + accessTtl - 1_000)
  expect(Date.parse(body.expiresAt)).toBeLessThanOrEqual(after + accessTtl)
  expect(Date.parse(body.refreshExpiresAt)).toBeGreaterThanOrEqual(before + refreshTtl - 1_000)
  expect(Date.parse(body.refreshExpiresAt)).toBeLessThanOrEqual(after + refreshTtl)
}

/** Bodies no password endpoint can read: each must be a 400 `{ error: string }`, never a 500. */
const malformedPasswordBodies: ReadonlyArray<{ readonly name: string; readonly body?: unknown }> = [
  { name: "no password field", body: {} },
  { name: "a numeric password", body: { password: 12345678 } },
  { name: "a null password", body: { password: null } },
  { name: "an array password", body: { password: ["correct horse battery staple"] } },
  { name: "a body that is not JSON", body: "password=correct horse battery staple" },
  { name: "a JSON array body", body: [password] },
  { name: "a JSON string body", body: JSON.stringify(password) },
  { name: "a JSON null body", body: "null" },
  { name: "no body at all" },
]

const post = (server: TestServer, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(`${server.url}${path}`, { method: "POST", body, ...(headers ? { headers } : {}) })

const isSetup = async (server: TestServer) => (await request(server.url)).body.auth.setup as boolean

describe.each(storageKinds)("POST /api/auth/setup (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("answers 201 with a token pair: access token for 15 minutes, refresh token for 7 days", async () => {
    const before = Date.now()
    const response = await post(server, "/api/auth/setup", { password })
    expect(response.status).toBe(201)
    expectTokenPair(response.body, before)
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(await isSetup(server)).toBe(true)
  })

  it("signs the caller in: the access token opens protected routes", async () => {
    const tokens = await setup(server)
    const sessions = await request(`${server.url}/api/auth/sessions`, { token: tokens.token })
    expect(sessions.status).toBe(200)
    expect(sessions.body.sessions).toHaveLength(1)
  })

  it("answers 409 already_setup once a password exists, and keeps the first password", async () => {
    await setup(server)
    const again = await post(server, "/api/auth/setup", { password: "another password entirely" })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ error: "already_setup" })
    expect((await post(server, "/api/auth/login", { password: "another password entirely" })).status).toBe(401)
    expect((await post(server, "/api/auth/login", { password })).status).toBe(200)
  })

  it("lets exactly one of simultaneous setups win; the others get 409 already_setup", async () => {
    const candidates = ["first password!", "second password!", "third password!"]
    const responses = await Promise.all(candidates.map((pw) => post(server, "/api/auth/setup", { password: pw })))
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409])
    const winner = candidates[responses.findIndex((response) => response.status === 201)]!
    for (const response of responses.filter((response) => response.status === 409)) {
      expect(response.body).toEqual({ error: "already_setup" })
    }
    const logins = await Promise.all(candidates.map((pw) => post(server, "/api/auth/login", { password: pw })))
    expect(logins.map((response) => response.status)).toEqual(
      candidates.map((candidate) => (candidate === winner ? 200 : 401)),
    )
  })

  it("rejects a password shorter than 8 characters with 400 and a message, and stays unset", async () => {
    const response = await post(server, "/api/auth/setup", { password: "1234567" })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect(await isSetup(server)).toBe(false)
    expect((await post(server, "/api/auth/setup", { password: "12345678" })).status).toBe(201)
  })

  it("counts the minimum length in characters, not bytes or UTF-16 units", async () => {
    // 7 emoji are 14 UTF-16 units and 28 bytes, but only 7 characters.
    const short = await post(server, "/api/auth/setup", { password: "🔑".repeat(7) })
    expect(short.status).toBe(400)
    const accented = "é".repeat(8)
    expect((await post(server, "/api/auth/setup", { password: accented })).status).toBe(201)
    expect((await post(server, "/api/auth/login", { password: accented })).status).toBe(200)
  })

  it("accepts a 128-character password", async () => {
    const long = `${"x".repeat(64)}${"Y".repeat(63)}!`
    expect(long).toHaveLength(128)
    expect((await post(server, "/api/auth/setup", { password: long })).status).toBe(201)
    expect((await post(server, "/api/auth/login", { password: long })).status).toBe(200)
    expect((await post(server, "/api/auth/login", { password: long.slice(0, 127) })).status).toBe(401)
  })

  it.each(malformedPasswordBodies)("answers 400 { error: string }, never 500, for $name", async ({ body }) => {
    const response = await post(server, "/api/auth/setup", body)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect(await isSetup(server)).toBe(false)
  })
})

describe.each(storageKinds)("POST /api/auth/login (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it("answers 403 setup_required before a password is set up", async () => {
    const response = await post(server, "/api/auth/login", { password })
    expect(response.status).toBe(403)
    expect(response.body).toEqual({ error: "setup_required" })
  })

  it("answers 401 invalid_credentials for a wrong password", async () => {
    await setup(server)
    const response = await post(server, "/api/auth/login", { password: `${password}!` })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "invalid_credentials" })
  })

  it("answers 401 invalid_credentials for an absurdly long password, without trying to hash it", async () => {
    await setup(server)
    const response = await post(server, "/api/auth/login", { password: "x".repeat(100_000) })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "invalid_credentials" })
  })

  it("answers 200 with a token pair for the right password", async () => {
    await setup(server)
    const before = Date.now()
    const response = await post(server, "/api/auth/login", { password })
    expect(response.status).toBe(200)
    expectTokenPair(response.body, before)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const sessions = await request(`${server.url}/api/auth/sessions`, { token: response.body.token })
    expect(sessions.status).toBe(200)
  })

  it("opens a new session with every login", async () => {
    const first = await setup(server)
    const second = (await post(server, "/api/auth/login", { password })).body
    const third = (await post(server, "/api/auth/login", { password })).body
    const tokens = [first.token, second.token, third.token]
    expect(new Set(tokens).size).toBe(3)
    expect(new Set([first.refreshToken, second.refreshToken, third.refreshToken]).size).toBe(3)

    const currentIds: Array<string> = []
    for (const token of tokens) {
      const response = await request(`${server.url}/api/auth/sessions`, { token })
      expect(response.status).toBe(200)
      expect(response.body.sessions).toHaveLength(3)
      currentIds.push(response.body.sessions.find((session: any) => session.current).id)
    }
    expect(new Set(currentIds).size).toBe(3)
  })

  it.each(malformedPasswordBodies)("answers 400 { error: string }, never 500, for $name", async ({ body }) => {
    await setup(server)
    const response = await post(server, "/api/auth/login", body)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
  })
})

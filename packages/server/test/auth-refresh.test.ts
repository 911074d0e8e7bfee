import { Duration } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { password, request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
/** SPEC leaves the 401 code of a bad refresh token open; it is still a machine-readable code. */
const authErrorCode = /^[a-z_]+$/

const refresh = (server: TestServer, refreshToken: string) =>
  request(`${server.url}/api/auth/refresh`, { body: { refreshToken } })

const sessions = (server: TestServer, token: string) => request(`${server.url}/api/auth/sessions`, { token })

const login = async (server: TestServer) => {
  const response = await request(`${server.url}/api/auth/login`, { body: { password } })
  expect(response.status).toBe(200)
  return response.body as { token: string; refreshToken: string }
}

const expectRefreshRefused = async (server: TestServer, refreshToken: string) => {
  const response = await refresh(server, refreshToken)
  expect(response.status).toBe(401)
  expect(response.body).toEqual({ error: expect.stringMatching(authErrorCode) })
}

const expectSignedOut = async (server: TestServer, token: string) => {
  const response = await sessions(server, token)
  expect(response.status).toBe(401)
  expect(response.body).toEqual({ error: "unauthorized" })
}

/** Requests without a usable refresh token: SPEC says 400 refresh_token_required, whatever is wrong. */
const absentRefreshTokens: ReadonlyArray<{ readonly name: string; readonly body?: unknown }> = [
  { name: "an empty object", body: {} },
  { name: "no body at all" },
  { name: "a numeric refreshToken", body: { refreshToken: 42 } },
  { name: "a null refreshToken", body: { refreshToken: null } },
  { name: "an object refreshToken", body: { refreshToken: { value: "aide_rt_x" } } },
  { name: "an empty refreshToken", body: { refreshToken: "" } },
  { name: "a body that is not JSON", body: "refreshToken=aide_rt_x" },
  { name: "a JSON array body", body: ["aide_rt_x"] },
]

describe.each(storageKinds)("POST /api/auth/refresh (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({ storage })
  })
  afterEach(() => server.close())

  it.each(absentRefreshTokens)("answers 400 refresh_token_required for $name", async ({ body }) => {
    const response = await request(`${server.url}/api/auth/refresh`, { method: "POST", body })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: "refresh_token_required" })
  })

  it("rotates: a new token pair, and the old refresh token is no longer accepted", async () => {
    const first = await setup(server)
    const response = await refresh(server, first.refreshToken)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: expect.stringMatching(isoTimestamp),
      refreshExpiresAt: expect.stringMatching(isoTimestamp),
    })
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.body.token).not.toBe(first.token)
    expect(response.body.refreshToken).not.toBe(first.refreshToken)
    expect(Date.parse(response.body.refreshExpiresAt)).toBeGreaterThanOrEqual(Date.parse(first.refreshExpiresAt))
    expect((await sessions(server, response.body.token)).status).toBe(200)

    await expectRefreshRefused(server, first.refreshToken)
  })

  it("keeps the session: the same session id, and no new session", async () => {
    const first = await setup(server)
    await login(server)
    const before = (await sessions(server, first.token)).body.sessions
    const ownId = before.find((session: any) => session.current).id

    const second = (await refresh(server, first.refreshToken)).body
    const third = (await refresh(server, second.refreshToken)).body
    const after = (await sessions(server, third.token)).body.sessions
    expect(after).toHaveLength(before.length)
    expect(after.map((session: any) => session.id).sort()).toEqual(before.map((session: any) => session.id).sort())
    expect(after.find((session: any) => session.current).id).toBe(ownId)
  })

  it("a reused refresh token revokes its whole session", async () => {
    const first = await setup(server)
    const other = await login(server)
    const second = (await refresh(server, first.refreshToken)).body
    const third = (await refresh(server, second.refreshToken)).body
    const revokedId = (await sessions(server, third.token)).body.sessions.find((session: any) => session.current).id

    // The first token was rotated away: presenting it again means it leaked.
    await expectRefreshRefused(server, first.refreshToken)

    await expectRefreshRefused(server, third.refreshToken)
    for (const token of [first.token, second.token, third.token]) await expectSignedOut(server, token)

    const remaining = await sessions(server, other.token)
    expect(remaining.status).toBe(200)
    expect(remaining.body.sessions.map((session: any) => session.id)).not.toContain(revokedId)
    expect((await refresh(server, other.refreshToken)).status).toBe(200)
  })

  it("answers 401 for a refresh token it never issued", async () => {
    const tokens = await setup(server)
    await expectRefreshRefused(server, "aide_rt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    await expectRefreshRefused(server, "not a refresh token")
    // An access token is not a refresh token.
    await expectRefreshRefused(server, tokens.token)
    expect((await refresh(server, tokens.refreshToken)).status).toBe(200)
  })

  it("answers 401 for the refresh token of a logged-out session", async () => {
    const tokens = await setup(server)
    expect((await request(`${server.url}/api/auth/logout`, { method: "POST", token: tokens.token })).status).toBe(200)
    await expectRefreshRefused(server, tokens.refreshToken)
  })

  it("lets exactly one of several simultaneous refreshes with one token succeed", async () => {
    const tokens = await setup(server)
    const responses = await Promise.all(Array.from({ length: 5 }, () => refresh(server, tokens.refreshToken)))
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([200, 401, 401, 401, 401])
  })
})

describe.each(storageKinds)("expired tokens (%s)", (storage) => {
  let server: TestServer
  beforeEach(async () => {
    server = await startServer({
      storage,
      kernel: { auth: { accessTokenTtl: Duration.seconds(1), refreshTokenTtl: Duration.seconds(1) } },
    })
  })
  afterEach(() => server.close())

  it("an expired refresh token gives 401, and so does an expired access token", async () => {
    const tokens = await setup(server)
    expect((await sessions(server, tokens.token)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    await expectRefreshRefused(server, tokens.refreshToken)
    await expectSignedOut(server, tokens.token)
  })
})

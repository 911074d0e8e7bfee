import { AideError, createAideClient, memoryTokenStore, type TokenPair } from "@aide/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, startServer, type TestServer } from "../../server/test/support/server.js"
import { unlimited } from "./support.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer({ kernel: { rateLimiter: unlimited } })
})
afterAll(() => server.close())

describe("client.auth", () => {
  it("setup signs in once; status tells setup from login", async () => {
    const client = createAideClient({ baseUrl: server.url })
    expect((await client.auth.status()).auth.setup).toBe(false)
    const tokens = await client.auth.setup(password)
    expect(tokens.token).toEqual(expect.any(String))
    expect(await client.auth.tokens()).toEqual(tokens)
    expect((await client.auth.status()).auth.setup).toBe(true)
    await expect(client.auth.setup(password)).rejects.toMatchObject({ status: 409, code: "already_setup" })
  })

  it("errors are AideErrors with the SPEC code", async () => {
    const client = createAideClient({ baseUrl: server.url })
    const error = await client.auth.login("not the password").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AideError)
    expect(error).toMatchObject({ status: 401, code: "invalid_credentials" })
    await expect(client.auth.sessions()).rejects.toMatchObject({ status: 401, code: "unauthorized" })
  })

  it("login, sessions, revokeSession, changePassword, logout", async () => {
    const client = createAideClient({ baseUrl: server.url })
    const other = createAideClient({ baseUrl: server.url })
    await client.auth.login(password)
    await other.auth.login(password)
    const sessions = await client.auth.sessions()
    const current = sessions.find((session) => session.current)!
    const otherSession = (await other.auth.sessions()).find((session) => session.current)!
    expect(sessions.map((session) => session.id)).toContain(otherSession.id)
    expect(await client.auth.revokeSession(otherSession.id)).toEqual({ success: true, loggedOut: false })
    await expect(other.auth.sessions()).rejects.toMatchObject({ status: 401 })
    await client.auth.changePassword(password, "a brand new password")
    expect((await client.auth.sessions()).some((session) => session.id === current.id)).toBe(false)
    await client.auth.changePassword("a brand new password", password)
    await client.auth.logout()
    expect(await client.auth.tokens()).toBeNull()
  })

  it("revokeAll ends every session and forgets the tokens", async () => {
    const client = createAideClient({ baseUrl: server.url })
    await client.auth.login(password)
    expect(await client.auth.revokeAll()).toMatchObject({ success: true, loggedOut: true })
    expect(await client.auth.tokens()).toBeNull()
  })
})

describe("refresh", () => {
  /** A store whose access token the server no longer accepts (expired, as far as the test goes). */
  const staleStore = (tokens: TokenPair) => memoryTokenStore({ ...tokens, token: "expired.access.token" })

  it("a refused access token is refreshed once and the call retried", async () => {
    const signedIn = createAideClient({ baseUrl: server.url })
    const tokens = await signedIn.auth.login(password)
    const store = staleStore(tokens)
    const client = createAideClient({ baseUrl: server.url, tokenStore: store })
    expect((await client.auth.sessions()).length).toBeGreaterThan(0)
    const rotated = (await store.get())!
    expect(rotated.refreshToken).not.toBe(tokens.refreshToken)
  })

  it("concurrent 401s share one refresh: the refresh token is never presented twice", async () => {
    const tokens = await createAideClient({ baseUrl: server.url }).auth.login(password)
    const refreshes: Array<string> = []
    const client = createAideClient({
      baseUrl: server.url,
      tokenStore: staleStore(tokens),
      fetch: (input, init) => {
        if (input.endsWith("/api/auth/refresh")) refreshes.push(String(init.body))
        return fetch(input, init)
      },
    })
    const results = await Promise.all(Array.from({ length: 8 }, () => client.auth.sessions()))
    expect(results.every((sessions) => sessions.length > 0)).toBe(true)
    expect(refreshes).toHaveLength(1)
    // The session survived: no reuse was detected.
    expect((await client.auth.sessions()).length).toBeGreaterThan(0)
  })

  it("a stored token past its expiresAt is refreshed before the requests: one refresh, no 401", async () => {
    const tokens = await createAideClient({ baseUrl: server.url }).auth.login(password)
    const statuses: Array<number> = []
    let refreshes = 0
    const client = createAideClient({
      baseUrl: server.url,
      // Expired as the page finds it after a night: a token the server refuses, its time passed.
      tokenStore: memoryTokenStore({
        ...tokens,
        token: "expired.access.token",
        expiresAt: new Date(Date.now() - 1_000) as never,
      }),
      fetch: async (input, init) => {
        if (input.endsWith("/api/auth/refresh")) refreshes++
        const response = await fetch(input, init)
        statuses.push(response.status)
        return response
      },
    })
    // A page load: several requests at once.
    await Promise.all([client.auth.sessions(), client.threads.list(), client.inbox.list(), client.config.get()])
    expect(refreshes).toBe(1)
    expect(statuses).not.toContain(401)
  })

  it("a fresh pair that looks expired (a clock far ahead) is not refreshed again and again", async () => {
    const tokens = await createAideClient({ baseUrl: server.url }).auth.login(password)
    let refreshes = 0
    const store = memoryTokenStore({ ...tokens, expiresAt: new Date(Date.now() - 1_000) as never })
    const client = createAideClient({
      baseUrl: server.url,
      tokenStore: {
        get: store.get,
        // The server's expiresAt, as seen by a client whose clock is a day ahead: always past.
        set: (next) =>
          store.set(next === null ? null : { ...next, expiresAt: new Date(Date.now() - 86_400_000) as never }),
      },
      fetch: (input, init) => {
        if (input.endsWith("/api/auth/refresh")) refreshes++
        return fetch(input, init)
      },
    })
    for (let index = 0; index < 4; index++) await client.threads.list()
    expect(refreshes).toBe(1)
  })

  it("a refused refresh calls onSessionLost and clears the store", async () => {
    const tokens = await createAideClient({ baseUrl: server.url }).auth.login(password)
    const lost: Array<AideError> = []
    const store = memoryTokenStore({ ...tokens, token: "expired", refreshToken: "aide_rt_not-a-token" })
    const client = createAideClient({ baseUrl: server.url, tokenStore: store, onSessionLost: (e) => lost.push(e) })
    await expect(client.threads.list()).rejects.toMatchObject({ status: 401 })
    expect(lost).toHaveLength(1)
    expect(await store.get()).toBeNull()
  })

  it("a refresh that never reached the server may be tried again; the session is kept", async () => {
    const tokens = await createAideClient({ baseUrl: server.url }).auth.login(password)
    let failNext = true
    const lost: Array<AideError> = []
    const store = staleStore(tokens)
    const client = createAideClient({
      baseUrl: server.url,
      tokenStore: store,
      onSessionLost: (e) => lost.push(e),
      fetch: (input, init) => {
        if (input.endsWith("/api/auth/refresh") && failNext) {
          failNext = false
          return Promise.reject(new TypeError("fetch failed"))
        }
        return fetch(input, init)
      },
    })
    await expect(client.auth.sessions()).rejects.toMatchObject({ status: 0, code: "network_error" })
    expect(await store.get()).not.toBeNull()
    expect((await client.auth.sessions()).length).toBeGreaterThan(0)
    expect(lost).toEqual([])
  })

  it("refresh() rotates the pair now", async () => {
    const client = createAideClient({ baseUrl: server.url })
    const first = await client.auth.login(password)
    const next = await client.auth.refresh()
    expect(next.refreshToken).not.toBe(first.refreshToken)
    expect(await client.auth.tokens()).toEqual(next)
  })
})

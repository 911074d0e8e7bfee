import { afterEach, describe, expect, it } from "vitest"
import {
  type JsonResponse,
  password,
  request,
  type StartOptions,
  setup,
  startServer,
  storageKinds,
  type TestServer,
} from "./support/server.js"

/** One request to a limited endpoint; each call is a fresh, otherwise acceptable attempt. */
type Attempt = () => Promise<JsonResponse>

/** SPEC "Limits", with a way to make requests to each endpoint from a clean server. */
const limitedEndpoints: ReadonlyArray<{
  readonly path: string
  readonly limit: number
  readonly prepare: (server: TestServer) => Promise<Attempt>
}> = [
  {
    path: "/api/auth/setup",
    limit: 3,
    prepare: async (server) => () => request(`${server.url}/api/auth/setup`, { body: { password } }),
  },
  {
    path: "/api/auth/login",
    limit: 5,
    prepare: async (server) => {
      await setup(server)
      return () => request(`${server.url}/api/auth/login`, { body: { password } })
    },
  },
  {
    path: "/api/auth/refresh",
    limit: 10,
    prepare: async (server) => {
      let { refreshToken } = await setup(server)
      return async () => {
        const response = await request(`${server.url}/api/auth/refresh`, { body: { refreshToken } })
        if (response.status === 200) refreshToken = response.body.refreshToken
        return response
      }
    },
  },
  {
    path: "/api/auth/change-password",
    limit: 3,
    prepare: async (server) => {
      const { token } = await setup(server)
      return () =>
        request(`${server.url}/api/auth/change-password`, {
          token,
          body: { currentPassword: "not the password", newPassword: "a brand new passphrase" },
        })
    },
  },
]

const expectAllowed = (response: JsonResponse, limit: number, remaining: number) => {
  expect(response.status).not.toBe(429)
  expect(response.headers.get("x-ratelimit-limit")).toBe(String(limit))
  expect(response.headers.get("x-ratelimit-remaining")).toBe(String(remaining))
}

const expectRefused = (response: JsonResponse, limit: number) => {
  expect(response.status).toBe(429)
  expect(response.body).toEqual({ error: "too_many_requests" })
  expect(response.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/)
  expect(Number(response.headers.get("retry-after"))).toBeLessThanOrEqual(60)
  expect(response.headers.get("x-ratelimit-limit")).toBe(String(limit))
  expect(response.headers.get("x-ratelimit-remaining")).toBe("0")
  expect(response.headers.get("cache-control")).toBe("no-store")
}

describe.each(storageKinds)("rate limits of the auth endpoints (%s)", (storage) => {
  const servers: Array<TestServer> = []
  const start = async (options: StartOptions = {}) => {
    const server = await startServer({ storage, ...options })
    servers.push(server)
    return server
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  it.each(limitedEndpoints)(
    "$path allows $limit requests a minute, counting down X-RateLimit-Remaining",
    async ({ limit, prepare }) => {
      const attempt = await prepare(await start())
      for (let used = 1; used <= limit; used++) expectAllowed(await attempt(), limit, limit - used)
    },
  )

  it.each(limitedEndpoints)(
    "$path refuses the request over the limit with 429 too_many_requests, Retry-After and no-store",
    async ({ limit, prepare }) => {
      const attempt = await prepare(await start())
      for (let used = 1; used <= limit; used++) expect((await attempt()).status).not.toBe(429)
      expectRefused(await attempt(), limit)
      expectRefused(await attempt(), limit)
    },
  )

  it("a refused login issues no token, even for the right password", async () => {
    const server = await start()
    await setup(server)
    for (let used = 1; used <= 5; used++) {
      const wrong = await request(`${server.url}/api/auth/login`, { body: { password: `wrong ${used}` } })
      expect(wrong.status).toBe(401)
    }
    const right = await request(`${server.url}/api/auth/login`, { body: { password } })
    expectRefused(right, 5)
  })

  it("a refused change-password leaves the password as it was", async () => {
    const server = await start()
    const { token } = await setup(server)
    const change = (currentPassword: string) =>
      request(`${server.url}/api/auth/change-password`, {
        token,
        body: { currentPassword, newPassword: "a brand new passphrase" },
      })
    for (let used = 1; used <= 3; used++) expect((await change(`wrong ${used}`)).status).toBe(401)
    expectRefused(await change(password), 3)
    expect((await request(`${server.url}/api/auth/sessions`, { token })).status).toBe(200)
    expect((await request(`${server.url}/api/auth/login`, { body: { password } })).status).toBe(200)
  })

  it("counts each endpoint separately: with login exhausted, refresh and change-password still answer", async () => {
    const server = await start()
    const tokens = await setup(server)
    for (let used = 1; used <= 5; used++) {
      await request(`${server.url}/api/auth/login`, { body: { password: "not the password" } })
    }
    expectRefused(await request(`${server.url}/api/auth/login`, { body: { password } }), 5)

    const refreshed = await request(`${server.url}/api/auth/refresh`, { body: { refreshToken: tokens.refreshToken } })
    expect(refreshed.status).toBe(200)
    expectAllowed(refreshed, 10, 9)
    const changed = await request(`${server.url}/api/auth/change-password`, {
      token: refreshed.body.token,
      body: { currentPassword: "not the password", newPassword: "a brand new passphrase" },
    })
    expect(changed.status).toBe(401)
    expectAllowed(changed, 3, 2)
  })

  it("gives each X-Forwarded-For client its own budget when the proxy is trusted", async () => {
    const server = await start({ trustProxy: { _tag: "Hops", hops: 1 } })
    await setup(server)
    const login = (client?: string) =>
      request(`${server.url}/api/auth/login`, {
        body: { password },
        ...(client ? { headers: { "x-forwarded-for": client } } : {}),
      })
    for (let used = 1; used <= 5; used++) expectAllowed(await login("203.0.113.1"), 5, 5 - used)
    expectRefused(await login("203.0.113.1"), 5)

    const other = await login("203.0.113.2")
    expect(other.status).toBe(200)
    expectAllowed(other, 5, 4)
    const direct = await login()
    expect(direct.status).toBe(200)
    expectAllowed(direct, 5, 4)
  })

  it("ignores X-Forwarded-For when no proxy is trusted", async () => {
    const server = await start()
    await setup(server)
    const login = (client: string) =>
      request(`${server.url}/api/auth/login`, { body: { password }, headers: { "x-forwarded-for": client } })
    for (let used = 1; used <= 5; used++) expectAllowed(await login(`203.0.113.${used}`), 5, 5 - used)
    expectRefused(await login("203.0.113.99"), 5)
  })

  it("with one trusted hop, counts the address the proxy saw, whatever the client prepends", async () => {
    const server = await start({ trustProxy: { _tag: "Hops", hops: 1 } })
    await setup(server)
    const login = (spoofed: string) =>
      request(`${server.url}/api/auth/login`, {
        body: { password },
        headers: { "x-forwarded-for": `${spoofed}, 203.0.113.9` },
      })
    for (let used = 1; used <= 5; used++) expectAllowed(await login(`198.51.100.${used}`), 5, 5 - used)
    expectRefused(await login("198.51.100.99"), 5)
  })
})

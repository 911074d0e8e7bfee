import { Server, ServerConfig } from "@aide/server"
import { ConfigProvider, Effect, Either, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, startServer, type TestServer } from "../support/server.js"

const metricsToken = "a scraper's token, 32 bytes or more, at last"
const cronSecret = "a platform cron's secret, 32 bytes or more"
/** 31 bytes: one short of the minimum (`é` is two bytes in UTF-8, so 30 characters). */
const almost = `${"x".repeat(29)}é`

/** `ServerConfig.fromEnv` over `env`: the configuration, or why `aide-server` refuses to start. */
const read = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(
      Effect.withConfigProvider(ServerConfig.fromEnv, ConfigProvider.fromMap(new Map(Object.entries(env)))),
    ),
  )

describe("AIDE_METRICS_TOKEN and AIDE_CRON_SECRET need 32 bytes, like AIDE_JWT_SECRET", () => {
  it.each(["AIDE_METRICS_TOKEN", "AIDE_CRON_SECRET"])(
    "%s shorter than 32 bytes is refused at start, naming it",
    (name) => {
      for (const value of ["hunter2", almost]) {
        const result = read({ [name]: value })
        expect(Either.isLeft(result)).toBe(true)
        const problem = String(Either.isLeft(result) && result.left)
        expect(problem).toContain(name)
        expect(problem).toMatch(/at least 32 bytes/)
        expect(problem).not.toContain(value)
      }
      const accepted = read({ [name]: `${almost}x` })
      expect(Either.isRight(accepted)).toBe(true)
      expect(Either.isRight(read({}))).toBe(true)
    },
  )

  it("Server.webHandler refuses a short cronSecret or metricsToken when called, with a clear error", () => {
    const base = {
      port: 0,
      host: "127.0.0.1",
      dataDir: "/nonexistent",
      databaseUrl: Option.none(),
      jwtSecret: Option.none(),
    }
    const options = {
      ...base,
      trustProxy: { _tag: "None" } as const,
      maxBodyBytes: ServerConfig.defaultMaxBodyBytes,
      chatMaxBodyBytes: ServerConfig.defaultChatMaxBodyBytes,
      serverless: true,
    }
    expect(() => Server.webHandler({ ...options, cronSecret: Option.some(Redacted.make("a")) })).toThrow(
      expect.objectContaining({
        _tag: "WebHandlerOptionsError",
        message: expect.stringMatching(/AIDE_CRON_SECRET must be at least 32 bytes/),
      }),
    )
    expect(() => Server.webHandler({ ...options, metricsToken: Option.some(Redacted.make(almost)) })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/AIDE_METRICS_TOKEN must be at least 32 bytes/) }),
    )
  })

  it("Server.layer with a short metricsToken fails to build, not serving", async () => {
    const runtime = ManagedRuntime.make(
      Server.layer({
        port: 0,
        host: "127.0.0.1",
        dataDir: "/nonexistent",
        databaseUrl: Option.none(),
        jwtSecret: Option.none(),
        trustProxy: { _tag: "None" },
        maxBodyBytes: ServerConfig.defaultMaxBodyBytes,
        chatMaxBodyBytes: ServerConfig.defaultChatMaxBodyBytes,
        metricsToken: Option.some(Redacted.make("a")),
      }).pipe(Layer.orDie),
    )
    await expect(runtime.runPromise(Server.baseUrl)).rejects.toThrow(/AIDE_METRICS_TOKEN must be at least 32 bytes/)
    await runtime.dispose()
  })
})

/** Behind one trusted proxy, so `X-Forwarded-For` names the client: two clients from one test. */
const trustOneProxy = { _tag: "Hops", hops: 1 } as const

describe.each([
  { route: "GET /metrics", mode: "server" as const, method: "GET", path: "/metrics", secret: metricsToken },
  {
    route: "POST /api/schedule/run-due",
    mode: "serverless" as const,
    method: "POST",
    path: "/api/schedule/run-due",
    secret: cronSecret,
  },
])("$route: wrong Bearers are rate-limited per client, like logins", ({ mode, method, path, secret }) => {
  let server: TestServer
  const call = (client: string, token?: string) =>
    request(`${server.url}${path}`, {
      method,
      headers: { "x-forwarded-for": client },
      ...(token === undefined ? {} : { token }),
    })

  beforeAll(async () => {
    server = await startServer({
      mode,
      trustProxy: trustOneProxy,
      metricsToken: Option.some(Redacted.make(metricsToken)),
      cronSecret: Option.some(Redacted.make(cronSecret)),
    })
  })
  afterAll(() => server.close())

  it("ten wrong Bearers a minute get 401, then every request of that client 429 with Retry-After", async () => {
    const client = "203.0.113.7"
    // The right Bearer spends nothing: a scraper or cron is never limited by its own calls.
    for (let i = 0; i < 12; i++) expect((await call(client, secret)).status).toBe(200)
    const refused = []
    for (let i = 0; i < 9; i++) refused.push((await call(client, `wrong-${i}`)).status)
    refused.push((await call(client)).status)
    expect(refused).toEqual(Array(10).fill(401))
    const limited = await call(client, "wrong-again")
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: "too_many_requests" })
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    // The right Bearer too, until the window ends: a 200 among 429s would tell a guesser it won.
    expect((await call(client, secret)).status).toBe(429)
    // Another client keeps its own budget.
    expect((await call("198.51.100.9", secret)).status).toBe(200)
    expect((await call("198.51.100.9", "wrong")).status).toBe(401)
  })
})

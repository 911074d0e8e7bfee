import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, startChatServer } from "./support/chat.js"

const metricsToken = "scraper-token-of-32-bytes-or-more-in-length"

/** The value of one sample line (`name{labels} value`) of a Prometheus text body; 0 when absent. */
const sample = (text: string, line: string) => {
  const found = text.split("\n").find((candidate) => candidate.startsWith(`${line} `))
  return found === undefined ? 0 : Number(found.slice(line.length + 1))
}

/** `GET /metrics` of `server`, with the scraper's token unless told otherwise. */
const scrapeOf = async (server: ChatTestServer, token: string | null = metricsToken) => {
  const response = await fetch(`${server.url}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  })
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
}

describe("GET /metrics", () => {
  let server: ChatTestServer
  const scrape = (token?: string | null) => scrapeOf(server, token)

  beforeAll(async () => {
    server = await startChatServer({ metricsToken: Option.some(Redacted.make(metricsToken)) })
  })
  afterAll(() => server.close())

  it("answers 401 without a token or with a wrong one", async () => {
    expect((await scrape(null)).status).toBe(401)
    expect((await scrape("wrong")).status).toBe(401)
  })

  it("answers Prometheus text to the metrics token, and to the owner's token", async () => {
    const byToken = await scrape()
    expect(byToken.status).toBe(200)
    expect(byToken.type).toBe("text/plain; version=0.0.4; charset=utf-8")
    expect(byToken.text).toContain("# TYPE aide_http_requests_total counter")
    expect((await scrape(server.token)).status).toBe(200)
  })

  it("counts requests by route pattern (not the URL) and status", async () => {
    const line = 'aide_http_requests_total{method="GET",route="/api/threads/:id",status="404"}'
    const before = sample((await scrape()).text, line)
    for (const id of ["a", "b", "c"]) {
      const response = await fetch(`${server.url}/api/threads/${id}`, {
        headers: { authorization: `Bearer ${server.token}` },
      })
      expect(response.status).toBe(404)
    }
    const text = (await scrape()).text
    expect(sample(text, line)).toBe(before + 3)
    expect(text).not.toContain("/api/threads/a")
  })

  it("counts chat runs and observes their latency to the first delta", async () => {
    const before = (await scrape()).text
    server.model.script({ text: "Counted." })
    const response = await chat(server, "Hello")
    await response.text()
    const after = (await scrape()).text
    const runs = 'aide_chat_runs_total{outcome="completed"}'
    expect(sample(after, runs)).toBe(sample(before, runs) + 1)
    expect(sample(after, "aide_chat_first_delta_seconds_count")).toBe(
      sample(before, "aide_chat_first_delta_seconds_count") + 1,
    )
    expect(after).toContain("# TYPE aide_chat_first_delta_seconds histogram")
    expect(after).toContain('aide_chat_first_delta_seconds_bucket{le="+Inf"}')
  })

  it("counts model errors", async () => {
    const before = sample((await scrape()).text, "aide_model_errors_total")
    server.model.script({ error: { status: 400, message: "bad request" } })
    const response = await chat(server, "Fail")
    await response.text()
    expect(sample((await scrape()).text, "aide_model_errors_total")).toBe(before + 1)
  })

  it("counts tool calls by the kind of their source and outcome", async () => {
    const line = 'aide_tool_calls_total{source="builtin",outcome="ok"}'
    const before = sample((await scrape()).text, line)
    server.model.script({ toolCalls: [{ id: "t1", name: "current_time", arguments: {} }] }, { text: "Late." })
    await (await chat(server, "What time is it?")).text()
    expect(sample((await scrape()).text, line)).toBe(before + 1)
  })

  it("reports SSE subscribers and running streams as gauges", async () => {
    const text = (await scrape()).text
    expect(text).toContain("# TYPE aide_sse_subscribers gauge")
    expect(sample(text, "aide_sse_subscribers")).toBe(0)
    expect(sample(text, "aide_chat_active_streams")).toBe(0)
  })
})

/** The pool lines of one scrape. */
const poolOf = (text: string) => ({
  idle: sample(text, 'aide_db_pool_connections{state="idle"}'),
  inUse: sample(text, 'aide_db_pool_connections{state="in_use"}'),
  max: sample(text, "aide_db_pool_max"),
  waiting: sample(text, "aide_db_pool_waiting"),
})

describe("GET /metrics: the database pool on SQLite", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ metricsToken: Option.some(Redacted.make(metricsToken)) })
  })
  afterAll(() => server.close())

  it("reports SQLite's one connection as a pool of one, idle", async () => {
    const text = (await scrapeOf(server)).text
    expect(text).toContain("# TYPE aide_db_pool_connections gauge")
    expect(poolOf(text)).toEqual({ idle: 1, inUse: 0, max: 1, waiting: 0 })
  })
})

describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("GET /metrics: the database pool on PostgreSQL", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ storage: "postgres", metricsToken: Option.some(Redacted.make(metricsToken)) })
  })
  afterAll(() => server.close())

  /** Scrapes until `done` holds of the pool lines (the server's own leases and claims use the pool too), at most 5 s. */
  const poolWhen = async (done: (pool: ReturnType<typeof poolOf>) => boolean) => {
    const deadline = Date.now() + 5_000
    let pool = poolOf((await scrapeOf(server)).text)
    while (!done(pool) && Date.now() < deadline) pool = poolOf((await scrapeOf(server)).text)
    return pool
  }

  it("reports the pool's connections in use, idle and the queries waiting for one", async () => {
    expect(poolOf((await scrapeOf(server)).text).max).toBe(10)
    // Twelve slow queries on a pool of ten: ten run, two (or more, with the server's own) wait.
    const slow = Array.from({ length: 12 }, () =>
      server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_sleep(1.5)`)),
    )
    const busy = await poolWhen((pool) => pool.inUse === 10 && pool.waiting >= 2)
    expect(busy).toMatchObject({ idle: 0, inUse: 10, max: 10 })
    expect(busy.waiting).toBeGreaterThanOrEqual(2)
    await Promise.all(slow)
    // Done: the ten connections stay open, idle, and nothing waits.
    expect(await poolWhen((pool) => pool.inUse === 0 && pool.waiting === 0)).toEqual({
      idle: 10,
      inUse: 0,
      max: 10,
      waiting: 0,
    })
  })
})

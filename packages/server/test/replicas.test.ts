import { FakeModelServer, type RecordedRequest } from "@aide/testing"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, killAll } from "./support/process.js"
import { eventually, heldLeases, type Replica, type Replicas, startReplicas } from "./support/replicas.js"
import { password, request } from "./support/server.js"

/**
 * Two real `aide-server` processes on one PostgreSQL database (issue 23): one run per thread
 * and `stop` across replicas, and the scheduler on one replica at a time, failing over to the
 * other when its holder is SIGKILLed, each due time still fired once.
 */

const operator = { provider: "openai-compatible", model: "fake-model" }
const isTitle = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes("You name conversations")

const query = <A extends object>(databaseUrl: string, text: string) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe<A>(text)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })),
    ),
  ) as Promise<ReadonlyArray<A>>

describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("two replicas on one PostgreSQL database", () => {
  let model: FakeModelServer
  let cluster: Replicas | undefined

  beforeAll(async () => {
    await ensureBuilt()
    model = await FakeModelServer.start()
  }, 300_000)
  afterEach(async () => {
    await cluster?.close()
    cluster = undefined
    model.reset()
    killAll()
  })
  afterAll(async () => {
    await model?.close()
  })

  const prepare = async (count: number) => {
    cluster = await startReplicas(count, { OPENAI_COMPATIBLE_BASE_URL: model.url })
    const [a] = cluster.replicas
    const setup = await request(`${a!.url}/api/auth/setup`, { body: { password } })
    expect(setup.status).toBe(201)
    const token = setup.body.token as string
    expect(
      (await request(`${a!.url}/api/config`, { method: "PATCH", token, body: { models: { operator } } })).status,
    ).toBe(200)
    return { cluster, token }
  }

  it("a thread busy on A is busy on B (409), and stop sent to B stops A's run", async () => {
    const { cluster, token } = await prepare(2)
    const [a, b] = cluster.replicas as [Replica, Replica]
    // B read its config at start, before A set the operator model: restart-free config sync is
    // another part of issue 23, so B learns it the way it would today.
    model.script({ endless: true, chunkDelayMs: 20, text: ["tick "] })
    const response = await fetch(`${a.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "count for ever" }] }),
    })
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const body = response.text()

    const busy = await request(`${b.url}/api/chat`, {
      token,
      body: { threadId, parts: [{ type: "text", text: "hi" }] },
    })
    expect(busy.status).toBe(409)
    const stopped = await request(`${b.url}/api/chat/${threadId}/stop`, { method: "POST", token })
    expect(stopped.body).toEqual({ success: true, stopped: true })
    // A's stream ends: the run was stopped where it ran.
    const text = await Promise.race([
      body,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("A's run was not stopped")), 5000)),
    ])
    expect(text).toContain("tick")
    // The claim is released with the run: B may now run the thread (its answer is B's own).
    await eventually("thread free on B", async () => {
      const again = await request(`${b.url}/api/chat/${threadId}/stop`, { method: "POST", token })
      return again.body.stopped === false
    })
  }, 60_000)

  it("the scheduler runs on one replica; 200 one-time tasks fire once each while its holder is SIGKILLed", async () => {
    const { cluster, token } = await prepare(1)
    const [a] = cluster.replicas as [Replica]
    await eventually("A holds the scheduler lease", () => heldLeases(a).has("scheduler"))
    const count = 200
    // One config write for all of them (the document holds the tasks), due over 4 s from +5 s.
    const firstDue = Date.now() + 5000
    const tasks = Array.from({ length: count }, (_, i) => ({
      id: crypto.randomUUID(),
      name: `t${i}`,
      prompt: `marker-${i}-end`,
      runAt: new Date(firstDue + i * 20).toISOString(),
    }))
    const patched = await request(`${a.url}/api/config`, { method: "PATCH", token, body: { schedule: { tasks } } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    // B starts after the tasks exist (it reads the config document at start).
    const b = await cluster.start()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(heldLeases(b).has("scheduler")).toBe(false)

    const fired = async () =>
      Number((await query<{ n: string }>(cluster.databaseUrl, "SELECT count(*) AS n FROM schedule_runs"))[0]!.n)
    await eventually("A fired some tasks", async () => (await fired()) >= 40, 30_000)
    a.child.kill("SIGKILL")
    await a.exited
    await eventually("B took the scheduler over", () => heldLeases(b).has("scheduler"), 10_000)
    await eventually("every task fired", async () => (await fired()) >= count, 90_000).catch(async (error) => {
      const byOwner = await query(
        cluster.databaseUrl,
        "SELECT claimed_by, status, count(*) FROM schedule_runs GROUP BY 1, 2",
      )
      throw new Error(`${error.message}: ${JSON.stringify(byOwner)}\n${b.stdout.slice(-30).join("\n")}`)
    })

    const rows = await query<{ task_id: string; n: string; owners: string }>(
      cluster.databaseUrl,
      "SELECT task_id, count(*) AS n, count(DISTINCT claimed_by) AS owners FROM schedule_runs GROUP BY task_id",
    )
    expect(rows).toHaveLength(count)
    expect(rows.every((row) => Number(row.n) === 1)).toBe(true)
    const owners = await query<{ claimed_by: string }>(
      cluster.databaseUrl,
      "SELECT DISTINCT claimed_by FROM schedule_runs",
    )
    expect(owners.length).toBe(2)
    // No prompt reached the model twice (one cut by the kill may not have reached it at all).
    const perMarker = new Map<string, number>()
    for (const recorded of model.requests.filter((r) => !isTitle(r))) {
      const marker = /marker-(\d+)-end/.exec(JSON.stringify(recorded.body.messages))?.[1]
      if (marker !== undefined) perMarker.set(marker, (perMarker.get(marker) ?? 0) + 1)
    }
    expect([...perMarker.values()].every((n) => n === 1)).toBe(true)
    expect(perMarker.size).toBeGreaterThan(count - 20)
  }, 180_000)
})

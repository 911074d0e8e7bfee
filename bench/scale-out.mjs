// Scale-out on this machine: one replica vs two on PostgreSQL + Redis (docs/operations.md,
// "Scale-out"). Needs the built server (`pnpm build`), `psql` and a Redis:
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test: a database is created and dropped)
//   BENCH_REDIS_URL    (default redis://127.0.0.1:6379; keys under a prefix of this run)
// Measures:
//   - authenticated req/s (GET /api/threads, 32 concurrent, 5 s): SQLite; PostgreSQL; PostgreSQL +
//     Redis; two replicas (clients alternate A/B);
//   - chat latency (first delta, whole answer; 30 chats) on PostgreSQL without and with Redis: what
//     Redis adds;
//   - cross-replica resume: a chat on A, resumed on B mid-answer with Last-Event-ID: time to B's
//     first event, and how much later B delivers an event than A does.
// Prints a table and writes bench/results/scale-out-<time>.json.

import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import {
  log,
  median,
  percentile,
  removeDir,
  request,
  root,
  round,
  setUp,
  startServer,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379"
const secret = "bench-scale-out-secret-of-at-least-32-bytes"

const psql = (sql) => execFileSync("psql", [adminUrl, "-q", "-c", sql], { stdio: ["ignore", "ignore", "inherit"] })
const newDatabase = () => {
  const name = `aide_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  psql(`CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

const startFakeModel = () =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "bench/fake-llm.mjs"), "0"], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    child.once("error", reject)
    child.stdout.once("data", (chunk) => {
      resolve({ url: `http://127.0.0.1:${Number(String(chunk).trim())}/v1`, stop: () => child.kill("SIGTERM") })
    })
  })

/** GET /api/threads from `concurrency` loops for `seconds`, round-robin over `urls`. */
const throughput = async (urls, token, { concurrency = 32, seconds = 5 } = {}) => {
  const deadline = performance.now() + seconds * 1000
  let done = 0
  let errors = 0
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      let turn = worker
      while (performance.now() < deadline) {
        const response = await request(urls[turn++ % urls.length], { path: "/api/threads?perPage=false", token })
        if (response.status === 200) done++
        else errors++
      }
    }),
  )
  return { rps: round(done / seconds, 0), errors }
}

/** One chat (POST /api/chat, SSE): [ms to the first text delta, ms to the end, thread id]. */
const chatOnce = async (url, token, text) => {
  const t0 = performance.now()
  const response = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ parts: [{ type: "text", text }] }),
  })
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let first
  let buffer = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    if (first === undefined && buffer.includes('"text-delta"')) first = performance.now() - t0
  }
  return [first ?? Number.NaN, performance.now() - t0]
}

const chatLatency = async (url, token, count = 30) => {
  const firsts = []
  const totals = []
  for (let i = 0; i < count; i++) {
    const [first, total] = await chatOnce(url, token, "hello")
    firsts.push(first)
    totals.push(total)
  }
  return {
    firstDeltaMedianMs: round(median(firsts)),
    firstDeltaP95Ms: round(percentile(firsts, 95)),
    totalMedianMs: round(median(totals)),
  }
}

/** SSE events of a response as [id, arrival ms]; resolves at the end of the stream. */
const eventTimes = async (response, onFirst) => {
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const times = new Map()
  let buffer = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    const now = performance.now()
    buffer += decoder.decode(value, { stream: true })
    let end = buffer.indexOf("\n\n")
    while (end !== -1) {
      const id = /^id: (\d+)/m.exec(buffer.slice(0, end))?.[1]
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf("\n\n")
      if (id !== undefined && !times.has(Number(id))) {
        times.set(Number(id), now)
        if (times.size === 1) onFirst?.(Number(id), now)
      }
    }
  }
  return times
}

/** A slow chat on A, followed on A and resumed on B after its second event: B's delay. */
const crossReplicaResume = async (a, b, token, runs = 10) => {
  const firstOnB = []
  const lag = []
  for (let run = 0; run < runs; run++) {
    const response = await fetch(`${a}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "SLOW 20" }] }),
    })
    const threadId = response.headers.get("x-thread-id")
    let resumed
    const onA = eventTimes(response, () => {
      const t0 = performance.now()
      resumed = fetch(`${b}/api/chat/${threadId}/stream`, {
        headers: { authorization: `Bearer ${token}`, "last-event-id": "1" },
      }).then((res) => eventTimes(res, () => firstOnB.push(performance.now() - t0)))
    })
    const timesA = await onA
    const timesB = await resumed
    for (const [id, at] of timesB) if (timesA.has(id) && id > 3) lag.push(at - timesA.get(id))
  }
  return {
    resumeFirstEventMedianMs: round(median(firstOnB)),
    resumeFirstEventP95Ms: round(percentile(firstOnB, 95)),
    liveLagBehindAMedianMs: round(median(lag)),
    liveLagBehindAP95Ms: round(percentile(lag, 95)),
  }
}

const fake = await startFakeModel()
const modelEnv = { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: "fake" }
const results = {}
const dirs = []
const servers = []
const databases = []
const start = async (env) => {
  const dataDir = tmpDir("aide-bench-scale-")
  dirs.push(dataDir)
  const server = await startServer({ dataDir, env: { ...modelEnv, AIDE_JWT_SECRET: secret, ...env } })
  servers.push(server)
  return server
}
const stopAll = async () => {
  while (servers.length > 0) await servers.pop().stop()
}

try {
  log("one replica, SQLite")
  let one = await start({})
  let token = await setUp(one.url)
  results.sqlite = { ...(await throughput([one.url], token)), chat: await chatLatency(one.url, token) }
  await stopAll()

  log("one replica, PostgreSQL")
  let database = newDatabase()
  databases.push(database)
  one = await start({ DATABASE_URL: database.url })
  token = await setUp(one.url)
  results.postgres = { ...(await throughput([one.url], token)), chat: await chatLatency(one.url, token) }
  await stopAll()

  log("one replica, PostgreSQL + Redis")
  database = newDatabase()
  databases.push(database)
  const prefix = `aide-bench:${randomUUID()}:`
  const scaleEnv = { DATABASE_URL: database.url, REDIS_URL: redisUrl, AIDE_REDIS_PREFIX: prefix, AIDE_REPLICAS: "many" }
  one = await start(scaleEnv)
  token = await setUp(one.url)
  results.postgresRedis = { ...(await throughput([one.url], token)), chat: await chatLatency(one.url, token) }

  log("two replicas, PostgreSQL + Redis")
  const two = await start(scaleEnv)
  results.twoReplicas = { ...(await throughput([one.url, two.url], token)) }
  results.crossReplica = await crossReplicaResume(one.url, two.url, token)
} finally {
  await stopAll()
  fake.stop()
  for (const database of databases) database.drop()
  for (const dir of dirs) removeDir(dir)
}

console.log(
  table(
    ["setup", "GET /api/threads req/s", "chat first delta (median / p95 ms)", "chat whole (median ms)"],
    [
      [
        "1 replica, SQLite",
        results.sqlite.rps,
        `${results.sqlite.chat.firstDeltaMedianMs} / ${results.sqlite.chat.firstDeltaP95Ms}`,
        results.sqlite.chat.totalMedianMs,
      ],
      [
        "1 replica, PostgreSQL",
        results.postgres.rps,
        `${results.postgres.chat.firstDeltaMedianMs} / ${results.postgres.chat.firstDeltaP95Ms}`,
        results.postgres.chat.totalMedianMs,
      ],
      [
        "1 replica, PostgreSQL + Redis",
        results.postgresRedis.rps,
        `${results.postgresRedis.chat.firstDeltaMedianMs} / ${results.postgresRedis.chat.firstDeltaP95Ms}`,
        results.postgresRedis.chat.totalMedianMs,
      ],
      ["2 replicas, PostgreSQL + Redis", results.twoReplicas.rps, "", ""],
    ],
  ),
)
console.log(
  `\ncross-replica resume: first event on B ${results.crossReplica.resumeFirstEventMedianMs} ms median (p95 ${results.crossReplica.resumeFirstEventP95Ms}); live events on B ${results.crossReplica.liveLagBehindAMedianMs} ms after A (p95 ${results.crossReplica.liveLagBehindAP95Ms})`,
)
console.log(`results: ${writeResults("scale-out", results)}`)

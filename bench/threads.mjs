#!/usr/bin/env node
// Aide threads benchmark, against the bundled server (packages/server/dist/main.js), loopback only:
//   1. GET /api/threads latency (default perPage) with 100 vs 10,000 root threads: autocannon
//      p50/p99 (10 connections, 5 s) and sequential p50/p99; it must not grow with N;
//   2. POST /api/threads/:id/fork of a 5,000-message thread at its last message (median of 5).
// Databases are seeded before the server starts, through the kernel's own API (the built
// packages/kernel/dist: Kernel.layer + Threads.ensure/saveMessage/fork), never by hand-written SQL.
//
//   npx -y pnpm@10.20.0 build && node bench/threads.mjs
//
// Knobs: THREADS_SMALL [100]  THREADS_LARGE [10000]  THREADS_FORK_MESSAGES [5000]
//        THREADS_DURATION [5] s per autocannon run  BENCH_SERVER (another main.js)
// Prints a markdown table; writes bench/results/threads-<timestamp>.json. ~1 minute.

import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import autocannon from "autocannon"
import {
  importFrom,
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

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = {
  small: int("THREADS_SMALL", 100),
  large: int("THREADS_LARGE", 10_000),
  forkMessages: int("THREADS_FORK_MESSAGES", 5000),
  duration: int("THREADS_DURATION", 5),
  connections: 10,
  sequential: 200,
  forks: 5,
  // Every 10th root gets a branch, so the list also joins families.
  branchEvery: 10,
}

const { Kernel, Threads } = await import(pathToFileURL(path.join(root, "packages/kernel/dist/index.js")).href)
const { Effect, ManagedRuntime } = await importFrom("kernel", "effect")
const { SqlClient } = await importFrom("kernel", "@effect/sql")

const userText = (i) =>
  `Question ${i}: what is a good way to structure a small TypeScript project with tests and a build?`
const assistantText = (i) =>
  `Answer ${i}: ${"Keep the source in src/, the tests next to it or in test/, and let one tool do the build. ".repeat(6)}`

/**
 * Seeds `dataDir` with `roots` root threads of two messages each (every `branchEvery`-th with one
 * branch), and optionally one more root with `longMessages` messages. Returns the long thread's
 * id and its last message id.
 */
const seed = async (dataDir, { roots, longMessages = 0 }) => {
  const runtime = ManagedRuntime.make(Kernel.layer({ dataDir }))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const threads = yield* Threads.Threads
        const sql = yield* SqlClient.SqlClient
        const batch = 500
        for (let start = 0; start < roots; start += batch) {
          // One transaction per batch (saveMessage's own transactions nest as savepoints): seeding speed only.
          yield* sql.withTransaction(
            Effect.gen(function* () {
              for (let i = start; i < Math.min(roots, start + batch); i++) {
                const id = `seed-${String(i).padStart(6, "0")}`
                yield* threads.ensure(id)
                yield* threads.saveMessage(id, {
                  id: `${id}-u`,
                  role: "user",
                  parts: [{ type: "text", text: userText(i) }],
                })
                yield* threads.saveMessage(id, {
                  id: `${id}-a`,
                  role: "assistant",
                  parts: [{ type: "text", text: assistantText(i) }],
                })
                yield* threads.setTitle(id, `Seeded thread ${i}`)
                if (i % settings.branchEvery === 0) yield* threads.fork(id, `${id}-a`)
              }
            }),
          )
        }
        if (longMessages === 0) return undefined
        const id = "seed-long"
        yield* threads.ensure(id)
        let last
        for (let start = 0; start < longMessages; start += batch) {
          yield* sql.withTransaction(
            Effect.gen(function* () {
              for (let i = start; i < Math.min(longMessages, start + batch); i++) {
                last = `${id}-m${i}`
                yield* threads.saveMessage(id, {
                  id: last,
                  role: i % 2 === 0 ? "user" : "assistant",
                  parts: [{ type: "text", text: i % 2 === 0 ? userText(i) : assistantText(i) }],
                })
              }
            }),
          )
        }
        return { threadId: id, lastMessageId: last }
      }),
    )
  } finally {
    await runtime.dispose()
  }
}

const listLatency = async (server, token, label, urlPath = "/api/threads") => {
  // Sequential requests on one keep-alive connection: the latency of one request alone.
  const sequential = []
  let body
  for (let i = 0; i < settings.sequential + 20; i++) {
    const res = await request(server.url, { path: urlPath, token })
    if (res.status !== 200) throw new Error(`${urlPath}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`)
    if (i >= 20) sequential.push(res.ms)
    body = res.body
  }
  const opts = {
    url: `${server.url}${urlPath}`,
    connections: settings.connections,
    headers: { authorization: `Bearer ${token}` },
    renderProgressBar: false,
  }
  await autocannon({ ...opts, duration: 1 })
  const load = await autocannon({ ...opts, duration: settings.duration })
  const result = {
    label,
    path: urlPath,
    total: body.total,
    returned: body.threads.length,
    perPage: body.perPage,
    sequential: { p50: median(sequential), p99: percentile(sequential, 99) },
    load: {
      p50: load.latency.p50,
      p99: load.latency.p99,
      mean: load.latency.average,
      rps: load.requests.average,
      non2xx: load.non2xx,
      errors: load.errors,
    },
  }
  log(
    `${label} ${urlPath}: total ${body.total}, sequential p50 ${result.sequential.p50.toFixed(2)} ms; load p50 ${load.latency.p50} p99 ${load.latency.p99} ms, ${Math.round(load.requests.average)} req/s`,
  )
  return result
}

const results = { settings, node: process.version, date: new Date().toISOString(), loadavg: os.loadavg() }
const deadline = Date.now() + 170_000
const dirs = []
const servers = []
try {
  // 1. GET /api/threads with few and many roots.
  results.list = []
  let large
  for (const [label, roots] of [
    ["small", settings.small],
    ["large", settings.large],
  ]) {
    if (Date.now() > deadline) throw new Error("time budget exceeded")
    const dataDir = tmpDir(`aide-bench-threads-${label}-`)
    dirs.push(dataDir)
    const started = performance.now()
    const longThread = await seed(dataDir, { roots, longMessages: label === "large" ? settings.forkMessages : 0 })
    log(
      `seeded ${roots} roots${longThread ? ` + a ${settings.forkMessages}-message thread` : ""} in ${Math.round(performance.now() - started)} ms`,
    )
    const server = await startServer({ dataDir })
    servers.push(server)
    try {
      const token = await setUp(server.url)
      results.list.push(await listLatency(server, token, `${roots} roots`))
      if (label === "large") {
        const lastPage = Math.floor((roots + (longThread ? 1 : 0) - 1) / 50)
        results.deepPage = await listLatency(
          server,
          token,
          `${roots} roots, last page`,
          `/api/threads?page=${lastPage}`,
        )
        large = { server, token, longThread }
      }
    } finally {
      if (label !== "large") await server.stop()
    }
  }

  // 2. Forks of the long thread at its last message.
  const { server, token, longThread } = large
  try {
    const forks = []
    let cloned
    for (let i = 0; i < settings.forks + 1; i++) {
      const res = await request(server.url, {
        method: "POST",
        path: `/api/threads/${longThread.threadId}/fork`,
        token,
        body: { messageId: longThread.lastMessageId },
      })
      if (res.status !== 200 && res.status !== 201) throw new Error(`fork: ${res.status} ${JSON.stringify(res.body)}`)
      cloned = res.body.clonedMessageCount
      if (i > 0) forks.push(res.ms) // the first one warms the statement caches
    }
    const detail = []
    for (let i = 0; i < 5; i++) {
      const res = await request(server.url, { path: `/api/threads/${longThread.threadId}`, token })
      if (res.status !== 200) throw new Error(`detail: ${res.status}`)
      detail.push(res.ms)
    }
    results.fork = {
      messages: settings.forkMessages,
      cloned,
      ms: forks,
      median: median(forks),
      detailMedian: median(detail),
    }
    log(`fork of a ${settings.forkMessages}-message thread: median ${median(forks).toFixed(1)} ms (cloned ${cloned})`)
  } finally {
    await server.stop()
  }
} finally {
  // Whatever failed, no server is left behind (stop() of a stopped server returns at once).
  for (const server of servers) await server.stop()
  for (const dir of dirs) removeDir(dir)
}

const ms = (v) => `${round(v, 2)} ms`
const [small, largeList] = results.list
const rows = [
  ...results.list.map((r) => [
    `GET /api/threads, ${r.label} (default perPage ${r.perPage}, ${r.returned} returned)`,
    `**${ms(r.load.p50)} / ${ms(r.load.p99)}**`,
    `${Math.round(r.load.rps).toLocaleString("en")} req/s`,
    `${ms(r.sequential.p50)} / ${ms(r.sequential.p99)}`,
  ]),
  [
    `GET /api/threads?page=${results.deepPage.path.split("=")[1]} (last page of ${results.deepPage.total})`,
    `${ms(results.deepPage.load.p50)} / ${ms(results.deepPage.load.p99)}`,
    `${Math.round(results.deepPage.load.rps).toLocaleString("en")} req/s`,
    `${ms(results.deepPage.sequential.p50)} / ${ms(results.deepPage.sequential.p99)}`,
  ],
  [
    `POST /api/threads/:id/fork, ${results.fork.messages}-message thread (${results.fork.cloned} cloned; median of ${settings.forks})`,
    `**${ms(results.fork.median)}** (target < 200 ms)`,
    "",
    "",
  ],
  [`GET /api/threads/:id of that thread (median of 5)`, ms(results.fork.detailMedian), "", ""],
]
console.log(
  `\nThreads (${settings.connections} connections × ${settings.duration} s per autocannon run; node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})\n`,
)
console.log(table(["measure", "autocannon p50 / p99", "throughput", "sequential p50 / p99"], rows))
const growth = largeList.load.p50 - small.load.p50
console.log(
  `\nGET /api/threads p50 at ${settings.large} vs ${settings.small} roots: ${growth >= 0 ? "+" : ""}${round(growth, 2)} ms under load, ${round(largeList.sequential.p50 - small.sequential.p50, 2)} ms sequential`,
)
console.log(`\nresults: ${writeResults("threads", results)}`)
process.exit(0)

#!/usr/bin/env node
// Semantic recall latency with 100,000 stored messages (issue 11: target < 20 ms p50 on SQLite),
// through the built kernel (packages/kernel/dist): messages are written with Threads.saveMessage,
// so the recall triggers index them as in production; then `Recall.forTurn` (what a chat turn
// waits for: full-text search, neighbours, the prompt section) and `RecallIndex.searchText` alone
// are timed over RECALL_QUERIES queries. Full-text only (no embedder: it would time the provider).
//
//   npx -y pnpm@10.20.0 build && node bench/memory-recall.mjs
//
// Knobs: RECALL_MESSAGES [100000]  RECALL_PER_THREAD [20]  RECALL_QUERIES [200]
//        BENCH_STORAGE [sqlite,postgres]  BENCH_PG_URL [postgres://postgres@127.0.0.1:5432/test]
//        RECALL_SQLITE_DIR, RECALL_PG_DATABASE  where to keep the seeded database (and reuse it)
// Prints a markdown table; writes bench/results/memory-recall-<timestamp>.json.

import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { importFrom, log, percentile, removeDir, root, round, table, tmpDir, writeResults } from "./harness.mjs"

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = {
  messages: int("RECALL_MESSAGES", 100_000),
  perThread: int("RECALL_PER_THREAD", 20),
  queries: int("RECALL_QUERIES", 200),
  storages: (process.env.BENCH_STORAGE ?? "sqlite,postgres").split(",").filter(Boolean),
  pgAdminUrl: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test",
}

const kernelDist = (file) => pathToFileURL(path.join(root, "packages/kernel/dist", file)).href
const { Kernel, Threads, Recall, RecallIndex, AppConfig } = await import(kernelDist("index.js"))
const { PostgresStorage } = await import(kernelDist("postgres.js"))
const { Effect, ManagedRuntime, Redacted } = await importFrom("kernel", "effect")
const { SqlClient } = await importFrom("kernel", "@effect/sql")

// Text of varied words: a few thousand made-up words drawn Zipf-like (a few frequent, a long
// tail of rare ones), between common English words, as conversation text is.
let seed = 42
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
const syllables = "ka lo mi ne ta ri su ve po la do ze fi gu ha ja be cu mo na pe qui ro si tu wa xe yo".split(" ")
const vocabulary = Array.from({ length: 5_000 }, (_, n) => {
  let word = ""
  for (let k = 0, x = n + 7; k < 2 + (n % 3); k++, x = Math.floor(x / syllables.length) + k * 13)
    word += syllables[x % syllables.length]
  return `${word}${n}`
})
const common = "the a to and of I you it is was for on that with my we can do have this what how".split(" ")
const zipf = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** random()) - 1)]
const sentence = (words) =>
  Array.from({ length: words }, (_, n) => (n % 3 === 1 ? common[Math.floor(random() * common.length)] : zipf())).join(
    " ",
  )

const seedMessages = (runtime) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const threads = yield* Threads.Threads
      const sql = yield* SqlClient.SqlClient
      const threadCount = Math.ceil(settings.messages / settings.perThread)
      const batch = 25
      for (let start = 0; start < threadCount; start += batch) {
        // One transaction per batch of threads (saveMessage's own nest as savepoints): seeding speed only.
        yield* sql.withTransaction(
          Effect.forEach(
            Array.from({ length: Math.min(batch, threadCount - start) }, (_, k) => start + k),
            (t) =>
              Effect.gen(function* () {
                const id = `seed-${t}`
                yield* threads.ensure(id)
                yield* threads.setTitle(id, `Seeded conversation ${t}`)
                for (let m = 0; m < settings.perThread; m++) {
                  const user = m % 2 === 0
                  yield* threads.saveMessage(id, {
                    id: `${id}-${m}`,
                    role: user ? "user" : "assistant",
                    parts: [{ type: "text", text: sentence(user ? 8 + (m % 12) : 30 + (m % 40)) }],
                  })
                }
              }),
            { discard: true },
          ),
        )
      }
    }),
  )

const measure = (runtime) =>
  runtime.runPromise(
    Effect.gen(function* () {
      const config = yield* AppConfig.AppConfig
      yield* config.patch({ memory: { enabled: true, semanticRecall: { enabled: true, topK: 4, messageRange: 1 } } })
      const recall = yield* Recall.Recall
      const index = yield* RecallIndex.RecallIndex
      const queries = Array.from({ length: settings.queries + 20 }, () => sentence(6 + Math.floor(random() * 10)))
      const turn = [],
        search = []
      let found = 0
      for (const [n, text] of queries.entries()) {
        const history = [{ id: `q-${n}`, role: "user", parts: [{ type: "text", text }] }]
        const t0 = performance.now()
        const section = yield* recall.forTurn({ threadId: "bench-current", history })
        const t1 = performance.now()
        yield* index.searchText(Recall.queryTerms(text), { excludeThreadId: "bench-current", limit: 4 })
        const t2 = performance.now()
        if (n < 20) continue // warm-up: statement caches, first pages
        turn.push(t1 - t0)
        search.push(t2 - t1)
        if (section !== null) found++
      }
      return { turn, search, found }
    }),
  )

const run = async (storage) => {
  const kept = storage === "sqlite" ? process.env.RECALL_SQLITE_DIR : undefined
  const dataDir = kept ?? tmpDir("aide-recall-bench-")
  let dropDb
  let layerOptions = { dataDir }
  let reuse = kept !== undefined && existsSync(path.join(kept, "aide.db"))
  if (storage === "postgres") {
    // RECALL_PG_DATABASE: a database to keep the seeded messages in (created once, then reused).
    const keptDb = process.env.RECALL_PG_DATABASE
    const name = keptDb ?? `aide_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    const exists = execFileSync("psql", [
      settings.pgAdminUrl,
      "-Atc",
      `SELECT 1 FROM pg_database WHERE datname = '${name}'`,
    ])
    if (exists.toString().trim() === "1") reuse = true
    else execFileSync("psql", [settings.pgAdminUrl, "-qc", `CREATE DATABASE ${name}`])
    if (keptDb === undefined)
      dropDb = () => execFileSync("psql", [settings.pgAdminUrl, "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
    const url = new URL(settings.pgAdminUrl)
    url.pathname = `/${name}`
    layerOptions = { dataDir, storage: PostgresStorage.layer({ url: Redacted.make(url.toString()) }) }
  }
  const runtime = ManagedRuntime.make(Kernel.layer(layerOptions))
  try {
    const t0 = performance.now()
    if (!reuse) await seedMessages(runtime)
    const seedSeconds = (performance.now() - t0) / 1000
    log(`${storage}: ${settings.messages} messages written (indexed by the triggers) in ${round(seedSeconds, 1)} s`)
    const summary = async (label) => {
      const { turn, search, found } = await measure(runtime)
      log(`${label}: forTurn p50 ${round(percentile(turn, 50))} ms, p95 ${round(percentile(turn, 95))} ms`)
      return {
        storage: label,
        seedSeconds,
        found,
        turn: { p50: percentile(turn, 50), p95: percentile(turn, 95) },
        search: { p50: percentile(search, 50), p95: percentile(search, 95) },
      }
    }
    if (storage !== "postgres") return [await summary(storage)]
    // PostgreSQL reads term frequencies from the planner's statistics once autovacuum has
    // analyzed the table; a freshly filled one has none yet and counts through the index.
    const fresh = await summary("postgres (not analyzed yet)")
    await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ANALYZE recall_entries`))
    return [fresh, await summary("postgres (analyzed)")]
  } finally {
    await runtime.dispose()
    dropDb?.()
    if (kept === undefined) removeDir(dataDir)
  }
}

const results = []
for (const storage of settings.storages) {
  try {
    results.push(...(await run(storage)))
  } catch (error) {
    log(`${storage}: skipped (${error instanceof Error ? error.message : String(error)})`)
  }
}
const rows = results.map((r) => [
  r.storage,
  settings.messages.toLocaleString("en"),
  `${round(r.turn.p50)} / ${round(r.turn.p95)}`,
  `${round(r.search.p50)} / ${round(r.search.p95)}`,
  `${r.found} / ${settings.queries}`,
  `${round(r.seedSeconds, 1)} s`,
])
console.log(
  table(
    ["storage", "messages", "forTurn p50 / p95 (ms)", "searchText p50 / p95 (ms)", "turns with recall", "seeding"],
    rows,
  ),
)
log(`results: ${writeResults("memory-recall", { settings, results, node: process.version })}`)

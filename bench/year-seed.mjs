// Seeds a data directory with what an active owner has after a year (bench/year.mjs), through the
// built kernel's own stores (packages/kernel/dist: Threads, ObservationStore, InboxStore,
// RunLedger, AppConfig), never by hand-written SQL. Writes are batched in transactions (the
// stores' own transactions nest as savepoints); a marker file records the finished seed so the
// directory is reused by the next run at the same scale. With `databaseUrl` the stores are on
// PostgreSQL (that database, kept and reused like the directory; the marker stays in the directory).

import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { importFrom, log, root } from "./harness.mjs"

const { Kernel, Threads, ObservationStore, InboxStore, RunLedger, AppConfig } = await import(
  pathToFileURL(path.join(root, "packages/kernel/dist/index.js")).href
)
const { Effect, ManagedRuntime, Redacted } = await importFrom("kernel", "effect")
const { SqlClient } = await importFrom("kernel", "@effect/sql")

/** `Kernel.layer` on `dataDir`, on PostgreSQL at `databaseUrl` when given (the server's composition). */
export const kernelLayer = async (dataDir, databaseUrl, options = {}) => {
  if (databaseUrl === undefined) return Kernel.layer({ dataDir, ...options })
  const { PostgresStorage } = await import(pathToFileURL(path.join(root, "packages/kernel/dist/postgres.js")).href)
  return Kernel.layer({ dataDir, ...options, storage: PostgresStorage.layer({ url: Redacted.make(databaseUrl) }) })
}

/** The year at scale 1; `sizes(scale)` scales every count but the 2,000-message threads' length and the 200 tasks. */
export const sizes = (scale) => ({
  threads: Math.max(10, Math.round(20_000 * scale)),
  messages: Math.max(5_000, Math.round(1_000_000 * scale)),
  longThreads: Math.max(2, Math.round(20 * scale)),
  longLength: 2_000,
  observations: Math.max(100, Math.round(50_000 * scale)),
  inbox: Math.max(50, Math.round(5_000 * scale)),
  tasks: 200,
  runsPerTask: Math.max(2, Math.round(365 * scale)),
  branchEvery: 10,
})

const WORDS =
  "project deploy invoice garden recipe travel meeting budget python server backup calendar doctor " +
  "insurance kitchen bicycle migration postgres sqlite typescript review contract landlord holiday " +
  "flight hotel museum concert vaccine tax receipt mortgage tomato compost router firmware battery"
const vocab = WORDS.split(" ")
// A few common words and a long tail (a word and a number: ~70,000 distinct terms), as conversation text is.
export const sentence = (i, n) =>
  Array.from({ length: n }, (_, k) => {
    const word = vocab[(i * 7 + k * 13 + (i >> 3)) % vocab.length]
    return k % 3 === 0 ? `${word}${(i * 31 + k * 17) % 2_000}` : word
  }).join(" ")
const text = (i, role) =>
  role === "user" ? `Question ${i}: ${sentence(i, 18)}?` : `Answer ${i}: ${sentence(i, 40)}. ${sentence(i + 1, 30)}.`

const DAY = 86_400_000

/** The year's scheduled tasks: daily, at minutes and hours spread over the day. */
export const yearTasks = (count) =>
  Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    name: `Task ${i}`,
    prompt: `Summarise ${sentence(i, 6)}`,
    cron: `${i % 60} ${(i * 7) % 24} * * *`,
    timezone: "UTC",
  }))

/**
 * Seeds `dataDir` at `scale` unless `<dataDir>/year-seed.json` says it was; answers the marker
 * (what was seeded, the long thread's id, how long it took).
 */
export const seedYear = async (dataDir, scale, databaseUrl) => {
  const marker = path.join(dataDir, "year-seed.json")
  if (existsSync(marker)) {
    const seeded = JSON.parse(readFileSync(marker, "utf8"))
    if (seeded.scale === scale) {
      log(`reusing the seeded year at ${dataDir} (scale ${scale}, seeded in ${seeded.seconds} s)`)
      return seeded
    }
    throw new Error(`${dataDir} holds a year at scale ${seeded.scale}, not ${scale}: remove it or pick another --dir`)
  }
  const n = sizes(scale)
  const started = performance.now()
  const runtime = ManagedRuntime.make(await kernelLayer(dataDir, databaseUrl))
  const writers = databaseUrl === undefined ? 1 : 4
  let messages = 0
  let observations = 0
  let reflections = 0
  const progress = (what) =>
    log(
      `${what}: ${messages.toLocaleString("en")} messages, ${observations.toLocaleString("en")} observations, ${Math.round((performance.now() - started) / 1000)} s`,
    )
  try {
    await runtime.runPromise(
      Effect.gen(function* () {
        const threads = yield* Threads.Threads
        const observationStore = yield* ObservationStore.ObservationStore
        const inbox = yield* InboxStore.InboxStore
        const ledger = yield* RunLedger.RunLedger
        const config = yield* AppConfig.AppConfig
        const sql = yield* SqlClient.SqlClient
        const key = "resource"
        const t0 = Date.now() - 365 * DAY
        yield* observationStore.ensureRecord(key, "resource", "year-resource", new Date(t0))
        // Observations: one chunk per `perChunk` messages, a reflection every 200 chunks (the
        // reflector's job: a year of use has an active log of the last chunks only).
        const perChunk = Math.max(2, Math.floor(n.messages / n.observations))
        const pending = []
        let activeChunks = []
        let generation = 0
        const observe = (threadId, ids, at) =>
          Effect.gen(function* () {
            for (const id of ids) pending.push({ threadId, messageId: id, tokens: 80, createdAt: at })
            while (pending.length >= perChunk) {
              const batch = pending.splice(0, perChunk)
              yield* observationStore.ingest(key, batch)
              const token = `seed-${observations}`
              yield* observationStore.claim(key, "observing", token, at, new Date(at.getTime() + 60_000))
              const chunkId = `obs-${observations}`
              yield* observationStore.commitObservation(key, token, {
                id: chunkId,
                threadId: batch[0].threadId,
                messageIds: batch.map((e) => e.messageId),
                content: `* ${sentence(observations, 25)}`,
                tokens: 40,
                createdAt: at,
              })
              observations++
              activeChunks.push(chunkId)
              if (activeChunks.length >= 200) {
                const rtoken = `seed-r${generation}`
                yield* observationStore.claim(key, "reflecting", rtoken, at, new Date(at.getTime() + 60_000))
                generation++
                yield* observationStore.commitReflection(key, rtoken, {
                  generation,
                  content: `# Reflection ${generation}\n${sentence(generation, 200)}`,
                  tokens: 400,
                  absorbed: activeChunks,
                  createdAt: at,
                })
                reflections++
                activeChunks = []
              }
            }
          })

        // `length` messages of a thread, in the caller's transaction.
        const writeMessages = (id, length, first) =>
          Effect.gen(function* () {
            const ids = []
            for (let i = 0; i < length; i++) {
              const role = i % 2 === 0 ? "user" : "assistant"
              const messageId = `${id}-m${i}`
              yield* threads.saveMessage(id, {
                id: messageId,
                role,
                parts: [{ type: "text", text: text(first + i, role) }],
              })
              ids.push(messageId)
              messages++
            }
            return ids
          })

        // A thread of `length` messages, titled and observed.
        const writeThread = (id, title, length, first, at) =>
          Effect.gen(function* () {
            yield* threads.ensure(id)
            const ids = yield* writeMessages(id, length, first)
            yield* threads.setTitle(id, title)
            yield* observe(id, ids, at)
            return ids
          })

        // 1. The long threads, each with a branch at its middle.
        const longIds = []
        for (let t = 0; t < n.longThreads; t++) {
          const id = `year-long-${t}`
          const at = new Date(t0 + t * DAY)
          for (let start = 0; start < n.longLength; start += 500) {
            yield* sql.withTransaction(
              Effect.gen(function* () {
                if (start === 0) yield* threads.ensure(id)
                const ids = []
                for (let i = start; i < Math.min(n.longLength, start + 500); i++) {
                  const role = i % 2 === 0 ? "user" : "assistant"
                  const messageId = `${id}-m${i}`
                  yield* threads.saveMessage(id, {
                    id: messageId,
                    role,
                    parts: [{ type: "text", text: text(t * 10_000 + i, role) }],
                  })
                  ids.push(messageId)
                  messages++
                }
                yield* observe(id, ids, at)
              }),
            )
          }
          yield* threads.setTitle(id, `A long conversation ${t}`)
          yield* threads.fork(id, `${id}-m${n.longLength / 2}`)
          longIds.push(id)
        }
        progress(`${n.longThreads} long threads`)

        // 2. The other threads share the remaining messages (even lengths, at least 2).
        const others = n.threads - n.longThreads
        const remaining = Math.max(0, n.messages - messages)
        const perThread = Math.max(2, 2 * Math.round(remaining / others / 2))
        const batchThreads = Math.max(1, Math.floor(2_000 / perThread))
        const idOf = (t) => `year-${String(t).padStart(6, "0")}`
        const atOf = (t) => new Date(t0 + Math.floor((t / others) * 365 * DAY))
        for (let start = 0; start < others; start += batchThreads) {
          const batch = Array.from({ length: Math.min(others, start + batchThreads) - start }, (_, k) => start + k)
          if (writers === 1) {
            yield* sql.withTransaction(
              Effect.forEach(
                batch,
                (t) =>
                  Effect.gen(function* () {
                    const ids = yield* writeThread(
                      idOf(t),
                      `Thread ${t}: ${sentence(t, 4)}`,
                      perThread,
                      t * 100,
                      atOf(t),
                    )
                    if (t % n.branchEvery === 0) yield* threads.fork(idOf(t), ids[Math.floor(ids.length / 2)])
                  }),
                { discard: true },
              ),
            )
          } else {
            // PostgreSQL: `writers` threads at once, each in its own transaction (a round trip per
            // statement is what a seed waits for there). The roots are created first, each on its
            // own (their trigger locks the root counter's row until commit); observations follow
            // in thread order, as on SQLite.
            yield* Effect.forEach(batch, (t) => threads.ensure(idOf(t)), { concurrency: writers, discard: true })
            const written = yield* Effect.forEach(
              batch,
              (t) =>
                sql.withTransaction(
                  Effect.gen(function* () {
                    const ids = yield* writeMessages(idOf(t), perThread, t * 100)
                    yield* threads.setTitle(idOf(t), `Thread ${t}: ${sentence(t, 4)}`)
                    if (t % n.branchEvery === 0) yield* threads.fork(idOf(t), ids[Math.floor(ids.length / 2)])
                    return ids
                  }),
                ),
              { concurrency: writers },
            )
            yield* sql.withTransaction(
              Effect.forEach(batch, (t, k) => observe(idOf(t), written[k], atOf(t)), { discard: true }),
            )
          }
          if (Math.floor(start / batchThreads) % 25 === 24) progress(`threads ${start}/${others}`)
        }
        progress("threads done")

        // 3. Inbox messages.
        for (let start = 0; start < n.inbox; start += 500) {
          yield* sql.withTransaction(
            Effect.forEach(
              Array.from({ length: Math.min(500, n.inbox - start) }, (_, k) => start + k),
              (i) =>
                inbox.insert({
                  id: `year-inbox-${i}`,
                  subject: `Daily digest ${i}`,
                  body: `${sentence(i, 60)}.`,
                  threadId: null,
                  destination: "Web Inbox",
                  status: "sent",
                  createdAt: new Date(t0 + Math.floor((i / n.inbox) * 365 * DAY)),
                }),
              { discard: true },
            ),
          )
        }

        // 4. Scheduled tasks (the config document) and their run ledger.
        const tasks = yearTasks(n.tasks)
        yield* config.patch({ schedule: { tasks } })
        const now = Date.now()
        for (const [i, task] of tasks.entries()) {
          // The task's last due time before now (daily at the cron's UTC hour and minute), so the
          // cursor ends on it and the scheduler owes no catch-up run.
          const today = new Date(now)
          today.setUTCHours((i * 7) % 24, i % 60, 0, 0)
          const lastDue = today.getTime() <= now ? today.getTime() : today.getTime() - DAY
          yield* sql.withTransaction(
            Effect.gen(function* () {
              for (let r = n.runsPerTask - 1; r >= 0; r--) {
                const dueAt = lastDue - r * DAY
                yield* ledger.claim({ taskId: task.id, dueAt, status: "running", owner: "year-seed", now: dueAt })
                yield* ledger.finish(task.id, dueAt, { status: "succeeded", inboxMessageId: null }, dueAt + 5_000)
              }
            }),
          )
        }
      }),
    )
  } finally {
    await runtime.dispose()
  }
  const seeded = {
    scale,
    storage: databaseUrl === undefined ? "sqlite" : "postgres",
    sizes: n,
    messages,
    observations,
    reflections,
    longThreadIds: Array.from({ length: n.longThreads }, (_, t) => `year-long-${t}`),
    seconds: Math.round((performance.now() - started) / 1000),
  }
  writeFileSync(marker, `${JSON.stringify(seeded, null, 2)}\n`)
  progress(`seeded in ${seeded.seconds} s`)
  return seeded
}

/** `count` threads of two messages each on a fresh directory: a full first page, nothing more. */
export const seedThreads = async (dataDir, count, databaseUrl) => {
  const runtime = ManagedRuntime.make(await kernelLayer(dataDir, databaseUrl))
  try {
    await runtime.runPromise(
      Effect.gen(function* () {
        const threads = yield* Threads.Threads
        for (let t = 0; t < count; t++) {
          const id = `page-${t}`
          yield* threads.ensure(id)
          yield* threads.saveMessage(id, {
            id: `${id}-m0`,
            role: "user",
            parts: [{ type: "text", text: text(t, "user") }],
          })
          yield* threads.saveMessage(id, {
            id: `${id}-m1`,
            role: "assistant",
            parts: [{ type: "text", text: text(t, "assistant") }],
          })
          yield* threads.setTitle(id, `Thread ${t}: ${sentence(t, 4)}`)
        }
      }),
    )
  } finally {
    await runtime.dispose()
  }
}

#!/usr/bin/env node
// Scheduler benchmark with 10,000 tasks, against the kernel's TypeScript sources (no build):
//   1. memory: heap and RSS before and after 10,000 tasks are stored (config document + the
//      scheduler's state), per task;
//   2. next wake-up: every task's next occurrence computed from scratch (a first pass over new
//      tasks), and `Scheduler.list` (GET /api/schedule: every task's nextRun, from the cache);
//      the cost of any config patch once 10,000 tasks are stored;
//   3. firing precision: BENCH_SCHED_FIRES one-time tasks (default 200) due over the next 20 s,
//      among the 10,000, while chats run back to back in the same process (load); lateness =
//      ledger start − due time, p50/p99/max (target p99 < 1 s); each must fire exactly once.
// The model is the FakeModelServer of @aide/testing over HTTP (the real provider path).
//
//   node --import tsx bench/scheduler.mjs
//
// Knobs: BENCH_SCHED_TASKS [10000]  BENCH_SCHED_FIRES [200]  BENCH_SCHED_WINDOW_S [20]
// Writes bench/results/scheduler-<timestamp>.json. ≈ 1 minute.

import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Chat from "../packages/kernel/src/chat/Chat.ts"
import * as TitleGenerator from "../packages/kernel/src/chat/TitleGenerator.ts"
import * as AppConfig from "../packages/kernel/src/config/AppConfig.ts"
import * as Kernel from "../packages/kernel/src/Kernel.ts"
import * as Cron from "../packages/kernel/src/scheduler/Cron.ts"
import * as Scheduler from "../packages/kernel/src/scheduler/Scheduler.ts"
import { FakeModelServer } from "../packages/testing/src/index.ts"
import { log, median, percentile, removeDir, root, round, sleep, table, tmpDir, writeResults } from "./harness.mjs"

const kernelModule = (file) => import(pathToFileURL(path.join(root, "packages/kernel/node_modules", file)).href)
const { Context, Effect, Layer, Scope, Stream } = await kernelModule("effect/dist/esm/index.js")
const { SqlClient } = await kernelModule("@effect/sql/dist/esm/index.js")

const int = (name, fallback) => (Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback)
const taskCount = int("BENCH_SCHED_TASKS", 10_000)
const fires = Math.min(int("BENCH_SCHED_FIRES", 200), taskCount)
const windowMs = int("BENCH_SCHED_WINDOW_S", 20) * 1000
const mib = (bytes) => round(bytes / 1024 / 1024, 1)
const memory = () => {
  globalThis.gc?.()
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed, rss: usage.rss }
}
const timed = async (effect) => {
  const started = performance.now()
  const value = await run(effect)
  return { ms: performance.now() - started, value }
}

const fake = await FakeModelServer.start()
const dataDir = tmpDir("aide-bench-scheduler-")
const scope = await Effect.runPromise(Scope.make())
const kernel = await Effect.runPromise(
  Layer.buildWithScope(
    Kernel.layer({
      dataDir,
      env: { OPENAI_COMPATIBLE_BASE_URL: fake.url },
      titles: TitleGenerator.layerFallback,
      chat: { maxRetries: 0 },
    }),
    scope,
  ),
)
const run = (effect) => Effect.runPromise(Effect.provide(effect, kernel))
const config = Context.get(kernel, AppConfig.AppConfig)
const scheduler = Context.get(kernel, Scheduler.Scheduler)
const chat = Context.get(kernel, Chat.Chat)
const results = { taskCount, fires, windowMs, node: process.version, date: new Date().toISOString() }

try {
  await run(config.patch({ models: { operator: { provider: "openai-compatible", model: "fake-model" } } }))
  const before = memory()

  // 10,000 tasks: recurring ones at every minute of the day (none due during the run), and
  // `fires` one-time tasks spread over the window.
  const start = Date.now() + 5_000
  const tasks = Array.from({ length: taskCount }, (_, i) =>
    i < fires
      ? {
          id: randomUUID(),
          name: `once ${i}`,
          prompt: `one-time ${i}`,
          runAt: new Date(start + Math.floor((i * windowMs) / fires)).toISOString(),
        }
      : {
          id: randomUUID(),
          name: `daily ${i}`,
          prompt: `recurring ${i}`,
          cron: `${i % 60} ${((Math.floor(i / 60) % 24) + new Date().getUTCHours() + 2) % 24} * * *`,
          timezone: i % 2 === 0 ? "Europe/Berlin" : "America/New_York",
        },
  )
  const stored = await timed(config.patch({ schedule: { tasks } }))
  const oneTime = new Set(tasks.slice(0, fires).map((task) => task.id))
  const listCold = await timed(scheduler.list)
  const listWarm = []
  for (let i = 0; i < 5; i++) listWarm.push((await timed(scheduler.list)).ms)
  const patchWarm = []
  for (let i = 0; i < 5; i++) patchWarm.push((await timed(config.patch({ identity: { name: `Aide ${i}` } }))).ms)
  // From scratch: every task's next occurrence, as a first pass over new tasks computes it.
  const zones = new Map(tasks.map((task) => [task.id, task.timezone ?? "UTC"]))
  const fromScratch = performance.now()
  let earliest = Number.POSITIVE_INFINITY
  for (const task of tasks) {
    const due =
      task.cron === undefined ? Date.parse(task.runAt) : Cron.nextAfter(task.cron, zones.get(task.id), Date.now())
    if (due !== undefined && due < earliest) earliest = due
  }
  const fromScratchMs = performance.now() - fromScratch
  const after = memory()
  results.memory = {
    heapMiB: mib(after.heap - before.heap),
    rssMiB: mib(after.rss - before.rss),
    heapBytesPerTask: Math.round((after.heap - before.heap) / taskCount),
  }
  results.nextWakeUp = {
    storeTasksMs: round(stored.ms),
    configPatchWarmP50Ms: round(median(patchWarm)),
    nextWakeUpFromScratchMs: round(fromScratchMs),
    listColdMs: round(listCold.ms),
    listWarmP50Ms: round(median(listWarm)),
    nextRun: listCold.value.tasks.map((task) => task.nextRun).filter((next) => next !== null).length,
  }
  log(
    `stored ${taskCount} tasks in ${round(stored.ms)} ms; list cold ${round(listCold.ms)} ms, warm ${round(median(listWarm))} ms`,
  )

  // Load: chats back to back, two at a time, until the window has passed.
  let loadChats = 0
  let stopLoad = false
  const loadLoop = async (lane) => {
    while (!stopLoad) {
      const chatRun = await run(chat.send({ threadId: `load-${lane}`, parts: [{ type: "text", text: "Hello" }] }))
      await run(Stream.runDrain(chatRun.events))
      loadChats++
    }
  }
  const lanes = [loadLoop(1), loadLoop(2)]
  const deadline = start + windowMs + 15_000
  const sql = Context.get(kernel, SqlClient.SqlClient)
  let rows = []
  while (Date.now() < deadline) {
    await sleep(500)
    rows = await run(
      sql`SELECT task_id AS "taskId", due_at AS "dueAt", started_at AS "startedAt", status FROM schedule_runs`,
    )
    const done = rows.filter((row) => oneTime.has(row.taskId))
    if (done.length >= fires && Date.now() > start + windowMs) break
  }
  stopLoad = true
  await Promise.all(lanes)
  const fired = rows.filter((row) => oneTime.has(row.taskId))
  const lateness = fired.map((row) => Date.parse(row.startedAt) - Date.parse(row.dueAt))
  const remaining = (await run(config.get)).schedule.tasks.filter((task) => oneTime.has(task.id)).length
  results.firing = {
    fired: fired.length,
    distinctTasks: new Set(fired.map((row) => row.taskId)).size,
    skipped: fired.filter((row) => row.status === "skipped").length,
    oneTimeTasksLeft: remaining,
    latenessP50Ms: round(median(lateness)),
    latenessP99Ms: round(percentile(lateness, 99)),
    latenessMaxMs: round(Math.max(...lateness)),
    loadChats,
  }

  console.log(
    table(
      ["measure", "value"],
      [
        ["tasks", taskCount],
        [
          "memory for the tasks: heap / RSS",
          `${results.memory.heapMiB} / ${results.memory.rssMiB} MiB (${results.memory.heapBytesPerTask} B/task heap)`,
        ],
        ["store 10k tasks (config patch, validated)", `${results.nextWakeUp.storeTasksMs} ms`],
        [
          "next wake-up from scratch (every task's next occurrence)",
          `${results.nextWakeUp.nextWakeUpFromScratchMs} ms`,
        ],
        [
          "every task's nextRun (`Scheduler.list`, cached), first / p50",
          `${results.nextWakeUp.listColdMs} / ${results.nextWakeUp.listWarmP50Ms} ms`,
        ],
        [
          "any config patch with 10k tasks stored (whole document validated), p50",
          `${results.nextWakeUp.configPatchWarmP50Ms} ms`,
        ],
        [
          "one-time tasks fired / distinct / left in config",
          `${results.firing.fired} / ${results.firing.distinctTasks} / ${results.firing.oneTimeTasksLeft}`,
        ],
        [
          "lateness p50 / p99 / max",
          `${results.firing.latenessP50Ms} / **${results.firing.latenessP99Ms}** / ${results.firing.latenessMaxMs} ms (target p99 < 1000)`,
        ],
        ["chats served meanwhile (load)", loadChats],
      ],
    ),
  )
  log(`results: ${writeResults("scheduler", results)}`)
} finally {
  await Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined }))
  await fake.close()
  removeDir(dataDir)
}

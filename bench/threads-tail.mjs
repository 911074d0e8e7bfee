#!/usr/bin/env node
// What a chat run reads of a long thread (issue 38): `Threads.messages` (the whole thread, what
// a run read before) against `Threads.tail(id, 64)` (what it reads now when observational memory
// covers the older messages), on a thread of THREADS_TAIL_MESSAGES [2000] messages seeded through
// the built kernel (packages/kernel/dist) on SQLite. Median of THREADS_TAIL_SAMPLES [30] reads each,
// alternated.
//
//   npx -y pnpm@10.20.0 -r --filter ./packages/kernel build && node bench/threads-tail.mjs

import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { importFrom, log, median, removeDir, root, round, table, tmpDir } from "./harness.mjs"

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const count = int("THREADS_TAIL_MESSAGES", 2000)
const samples = int("THREADS_TAIL_SAMPLES", 30)
// THREADS_TAIL_KERNEL=packages/kernel/src/index.ts with `node --import tsx`: the sources instead.
const kernelEntry = process.env.THREADS_TAIL_KERNEL ?? "packages/kernel/dist/index.js"
const { Kernel, Threads } = await import(pathToFileURL(path.join(root, kernelEntry)).href)
const { Effect, ManagedRuntime } = await importFrom("kernel", "effect")

const dataDir = tmpDir("aide-bench-tail-")
const runtime = ManagedRuntime.make(Kernel.layer({ dataDir }))
try {
  const result = await runtime.runPromise(
    Effect.gen(function* () {
      const threads = yield* Threads.Threads
      yield* threads.ensure("long")
      for (let n = 0; n < count; n++) {
        const text = `message ${n}: ${"a few words of an ordinary chat message ".repeat(3)}`
        yield* threads.saveMessage("long", {
          id: `m${n}`,
          role: n % 2 === 0 ? "user" : "assistant",
          parts: [{ type: "text", text }],
        })
      }
      const timed = (effect) =>
        Effect.gen(function* () {
          const start = performance.now()
          const value = yield* effect
          return { ms: performance.now() - start, value }
        })
      const all = []
      const tail = []
      let rows = { all: 0, tail: 0 }
      for (let i = 0; i < samples; i++) {
        const a = yield* timed(threads.messages("long"))
        const t = yield* timed(threads.tail("long", 64))
        all.push(a.ms)
        tail.push(t.ms)
        rows = { all: a.value.length, tail: t.value.messages.length }
      }
      return { all: median(all), tail: median(tail), rows }
    }),
  )
  console.log(
    table(
      [`read of a ${count}-message thread (SQLite)`, "messages", "median (ms)"],
      [
        ["`Threads.messages` (whole thread)", result.rows.all, round(result.all, 2)],
        ["`Threads.tail(id, 64)`", result.rows.tail, round(result.tail, 2)],
      ],
    ),
  )
  log(`ratio ${round(result.all / result.tail, 1)}×`)
} finally {
  await runtime.dispose()
  removeDir(dataDir)
}

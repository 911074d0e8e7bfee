import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Logger, TestClock } from "effect"
import { Scheduler } from "../src/scheduler/Scheduler.js"
import { advanceTo, awaitRuns, fixture } from "./support/scheduler.js"

/** Issue 9, item 22: a scheduled run logs when it fires and how it ended, never the prompt or answer. */

interface Line {
  readonly message: string
  readonly level: string
  readonly annotations: Record<string, unknown>
}

const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make<unknown, void>(({ message, logLevel, annotations }) => {
    lines.push({
      message: String(Array.isArray(message) ? message[0] : message),
      level: logLevel.label,
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
    })
  })
  return { lines, layer: Logger.add(logger) }
}

describe("scheduler logs", () => {
  it.scoped("a task logs `task fired` and `task finished` with its id, lateness and duration, no content", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.reply = () => "A private answer."
      const log = capture()
      yield* TestClock.setTime(Date.parse("2026-01-01T08:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({
            name: "Reminder",
            prompt: "A private prompt",
            runAt: "2026-01-01T09:00:00Z",
          })
          yield* advanceTo(Date.parse("2026-01-01T09:00:00Z"))
          yield* awaitRuns(task.id, 1)
          const fired = log.lines.find((line) => line.message === "scheduler: task fired")
          expect(fired).toMatchObject({
            level: "INFO",
            annotations: { taskId: task.id, dueAt: "2026-01-01T09:00:00.000Z", lateMs: 0 },
          })
          expect(log.lines.find((line) => line.message === "scheduler: task finished")).toMatchObject({
            annotations: { taskId: task.id, status: "succeeded", durationMs: expect.any(Number) },
          })
          expect(JSON.stringify(log.lines)).not.toMatch(/private/)
        }),
      ).pipe(Effect.provide(log.layer))
    }),
  )
})

import { singleModelRegistry } from "@aide/testing/effect"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, TestClock } from "effect"
import * as PasswordHasher from "../../src/auth/PasswordHasher.js"
import * as TitleGenerator from "../../src/chat/TitleGenerator.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import * as Kernel from "../../src/Kernel.js"
import * as DueRunner from "../../src/scheduler/DueRunner.js"
import { armedAt } from "../../src/scheduler/DueTimes.js"
import * as ManualScheduler from "../../src/scheduler/ManualScheduler.js"
import { RunLedger } from "../../src/scheduler/RunLedger.js"
import { Scheduler } from "../../src/scheduler/Scheduler.js"
import { tempDirectory } from "../support/files.js"
import { settle, TestModel } from "../support/scheduler.js"

/**
 * A due time after a task's creation (or re-arming) and before a pass fires, once, whatever the
 * pass saw before: a warm instance (its pass ran before the task existed) must not count a task
 * it meets for the first time from the pass's own time.
 */

const at = (iso: string) => Date.parse(iso)

/** The default kernel with `ManualScheduler` as its scheduler (the editor and one pass). */
const manualKernel = (dataDir: string, model: TestModel) =>
  Kernel.layer({
    dataDir,
    signingSecret: Redacted.make(new Uint8Array(32).fill(5)),
    passwordHasher: PasswordHasher.layerTest,
    titles: TitleGenerator.layerFallback,
    modelRegistry: singleModelRegistry(model.model),
    chat: { maxRetries: 0 },
    schedulerLayer: ManualScheduler.layer(),
  })

// `settle` after each change: real time passes while the TestClock stands still, as schedulers
// apply a change within milliseconds of it, before the clock moves on to the pass.

/** A kernel at `start`, and a second instance's warm passes (built and run once before anything is created). */
const warmInstance = (start: string) =>
  Effect.gen(function* () {
    const model = new TestModel()
    yield* TestClock.setTime(at(start))
    const kernel = yield* Layer.build(manualKernel(yield* tempDirectory, model))
    // Another instance of the same deployment: same config document and ledger, its own state.
    const other = yield* Layer.build(Layer.merge(ManualScheduler.layer(), DueRunner.layer())).pipe(
      Effect.provide(kernel),
    )
    const manual = Context.get(other, ManualScheduler.ManualScheduler)
    const runner = Context.get(other, DueRunner.DueRunner)
    expect(yield* manual.runDue).toEqual({ fired: 0, nextDueAt: undefined, failed: false })
    expect(yield* runner.runDue).toEqual({ fired: 0 })
    return {
      model,
      scheduler: Context.get(kernel, Scheduler),
      ledger: Context.get(kernel, RunLedger),
      appConfig: Context.get(kernel, AppConfig),
      manual,
      runner,
    }
  })

describe("a task created between two passes fires at its first due time", () => {
  it.scoped("DueRunner.runDue: a * * * * * task created at :30 fires at the next minute's pass", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T10:14:10Z")
      yield* TestClock.setTime(at("2026-03-02T10:14:30Z"))
      const task = yield* warm.scheduler.create({ name: "Minutely", prompt: "Tick", cron: "* * * * *" })
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T10:15:02Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 1 })
      expect(yield* warm.ledger.runs(task.id)).toMatchObject([
        { dueAt: at("2026-03-02T10:15:00Z"), status: "succeeded" },
      ])
      // Once: the same due time does not fire again, on either pass.
      expect(yield* warm.runner.runDue).toEqual({ fired: 0 })
      yield* warm.manual.runDue
      expect(warm.model.calls).toHaveLength(1)
    }),
  )

  it.scoped("ManualScheduler.runDue: a daily 08:00 task created at 07:59 runs at 08:00, not the next day", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T07:30:00Z")
      yield* TestClock.setTime(at("2026-03-02T07:59:00Z"))
      const task = yield* warm.scheduler.create({ name: "Digest", prompt: "Summarise", cron: "0 8 * * *" })
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T08:00:30Z"))
      expect(yield* warm.manual.runDue).toEqual({
        fired: 1,
        nextDueAt: new Date("2026-03-03T08:00:00Z"),
        failed: false,
      })
      expect(yield* warm.ledger.runs(task.id)).toMatchObject([
        { dueAt: at("2026-03-02T08:00:00Z"), status: "succeeded" },
      ])
      expect(warm.model.calls).toHaveLength(1)
    }),
  )

  it.scoped("a cron changed between two passes fires at the new schedule's first due time", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T07:00:00Z")
      const task = yield* warm.scheduler.create({ name: "Digest", prompt: "Summarise", cron: "0 9 * * *" })
      yield* settle
      expect(yield* warm.runner.runDue).toEqual({ fired: 0 })
      yield* TestClock.setTime(at("2026-03-02T07:59:00Z"))
      yield* warm.scheduler.update(task.id, { cron: "0 8 * * *" })
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T08:00:30Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 1 })
      expect(yield* warm.ledger.runs(task.id)).toMatchObject([{ dueAt: at("2026-03-02T08:00:00Z") }])
    }),
  )

  it.scoped("a task added to the config document directly (an embedder, PATCH /api/config) counts from then", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T10:14:10Z")
      yield* TestClock.setTime(at("2026-03-02T10:14:30Z"))
      const id = "0b9f3a4e-8c1d-4f2a-9e7b-5d6c4b3a2f10"
      yield* warm.appConfig.modify((config) =>
        Effect.succeed({
          schedule: { tasks: [...config.schedule.tasks, { id, name: "Minutely", prompt: "Tick", cron: "* * * * *" }] },
        }),
      )
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T10:15:02Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 1 })
      expect(yield* warm.ledger.runs(id)).toMatchObject([{ dueAt: at("2026-03-02T10:15:00Z") }])
    }),
  )

  it.scoped("the heartbeat switched on at 07:59 for 08:00 beats at an 08:00:30 pass", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T07:30:00Z")
      yield* TestClock.setTime(at("2026-03-02T07:59:00Z"))
      yield* warm.scheduler.updateHeartbeat({
        enabled: true,
        cron: "0 8 * * *",
        tasks: [{ description: "Check the mail" }],
      })
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T08:00:30Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 1 })
      expect(warm.model.calls).toHaveLength(1)
    }),
  )

  it.scoped("a task first seen long after its creation still catches up at most once", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T07:00:00Z")
      const task = yield* warm.scheduler.create({ name: "Hourly", prompt: "Check", cron: "0 * * * *" })
      yield* settle
      // Hours later (the instance was frozen, or the server down): the latest occurrence only.
      yield* TestClock.setTime(at("2026-03-02T11:30:00Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 1 })
      expect(yield* warm.ledger.runs(task.id)).toMatchObject([{ dueAt: at("2026-03-02T11:00:00Z") }])
      expect(yield* warm.manual.runDue).toEqual({
        fired: 0,
        nextDueAt: new Date("2026-03-02T12:00:00Z"),
        failed: false,
      })
      expect(warm.model.calls).toHaveLength(1)
    }),
  )
})

describe("a schedule switched back on still owes nothing from when it was off", () => {
  it.scoped("master flag off at 07:00, a task created at 07:10, on again at 09:00:30: 08:00 does not fire", () =>
    Effect.gen(function* () {
      const warm = yield* warmInstance("2026-03-02T07:00:00Z")
      yield* warm.appConfig.modify(() => Effect.succeed({ schedule: { enabled: false } }))
      yield* TestClock.setTime(at("2026-03-02T07:10:00Z"))
      const task = yield* warm.scheduler.create({ name: "Digest", prompt: "Summarise", cron: "0 8 * * *" })
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T09:00:30Z"))
      yield* warm.appConfig.modify(() => Effect.succeed({ schedule: { enabled: true } }))
      yield* settle
      yield* TestClock.setTime(at("2026-03-02T09:01:00Z"))
      expect(yield* warm.runner.runDue).toEqual({ fired: 0 })
      expect(yield* warm.manual.runDue).toEqual({
        fired: 0,
        nextDueAt: new Date("2026-03-03T08:00:00Z"),
        failed: false,
      })
      expect(yield* warm.ledger.runs(task.id)).toEqual([])
    }),
  )
})

describe("armedAt: where a pass that finds a re-armed schedule late counts it from", () => {
  const since = at("2026-03-02T07:00:00Z")
  const now = at("2026-03-02T08:00:30Z")
  it("the time the change's maker recorded, when written after the pass last looked", () => {
    expect(armedAt(at("2026-03-02T07:59:00Z"), since, now)).toBe(at("2026-03-02T07:59:00Z"))
  })
  it("now when nothing newer was recorded (a change no scheduler saw being made)", () => {
    expect(armedAt(undefined, since, now)).toBe(now)
    expect(armedAt(at("2026-03-02T06:00:00Z"), since, now)).toBe(now)
    expect(armedAt(since, since, now)).toBe(now)
  })
  it("never a time after the pass", () => {
    expect(armedAt(at("2026-03-02T09:00:00Z"), since, now)).toBe(now)
  })
})

import { singleModelRegistry } from "@aide/testing/effect"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, TestClock } from "effect"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import * as DeliveringInbox from "../src/inbox/DeliveringInbox.js"
import { Inbox } from "../src/inbox/Inbox.js"
import * as Kernel from "../src/Kernel.js"
import * as DueRunner from "../src/scheduler/DueRunner.js"
import * as ManualScheduler from "../src/scheduler/ManualScheduler.js"
import { RunLedger } from "../src/scheduler/RunLedger.js"
import { Scheduler } from "../src/scheduler/Scheduler.js"
import { tempDirectory } from "./support/files.js"
import { type Calls, spy } from "./support/recording.js"
import { settle, TestModel } from "./support/scheduler.js"

const at = (iso: string) => Date.parse(iso)

/** The default kernel on a fresh data dir, with `ManualScheduler` and the inbox recorded in `inboxCalls`. */
const manualKernel = (dataDir: string, model: TestModel, inboxCalls: Calls) =>
  Kernel.layer({
    dataDir,
    signingSecret: Redacted.make(new Uint8Array(32).fill(5)),
    passwordHasher: PasswordHasher.layerTest,
    titles: TitleGenerator.layerFallback,
    modelRegistry: singleModelRegistry(model.model),
    chat: { maxRetries: 0 },
    schedulerLayer: ManualScheduler.layer(),
    inboxLayer: spy(Inbox, DeliveringInbox.layer(), inboxCalls),
  })

describe("ManualScheduler through Kernel.layer({ scheduler })", () => {
  it.scoped("never fires by itself; runDue fires what is due once, delivers to the inbox given, retires it", () =>
    Effect.gen(function* () {
      const model = new TestModel()
      model.reply = () => "Call Bob."
      const inboxCalls: Calls = []
      yield* TestClock.setTime(at("2026-01-01T08:00:00Z"))
      const kernel = yield* Layer.build(manualKernel(yield* tempDirectory, model, inboxCalls))
      const { scheduler, manual, ledger } = {
        scheduler: Context.get(kernel, Scheduler),
        manual: Context.get(kernel, ManualScheduler.ManualScheduler),
        ledger: Context.get(kernel, RunLedger),
      }
      const task = yield* scheduler.create({
        name: "Reminder",
        prompt: "Remind me",
        runAt: "2026-01-01T09:00:00Z",
        destination: "Web Inbox",
      })
      expect(yield* manual.runDue).toEqual({ fired: 0, nextDueAt: new Date("2026-01-01T09:00:00Z"), failed: false })

      // Past its time, with no one calling runDue: nothing runs.
      yield* TestClock.setTime(at("2026-01-01T09:30:00Z"))
      yield* settle
      expect(yield* ledger.runs(task.id)).toEqual([])
      expect(model.calls).toHaveLength(0)

      // runDue returns once the run is over: recorded, delivered, and the one-time task gone.
      expect(yield* manual.runDue).toEqual({ fired: 1, nextDueAt: undefined, failed: false })
      expect(yield* ledger.runs(task.id)).toMatchObject([
        { dueAt: at("2026-01-01T09:00:00Z"), status: "succeeded", inboxMessageId: expect.any(String) },
      ])
      expect(inboxCalls).toEqual(expect.arrayContaining(["resolveDestination", "create"]))
      expect((yield* scheduler.list).tasks).toEqual([])
      yield* manual.runDue
      expect(model.calls).toHaveLength(1)
    }),
  )

  it.scoped("two ManualSchedulers on one run ledger, called at once: each due time fires once", () =>
    Effect.gen(function* () {
      const model = new TestModel()
      yield* TestClock.setTime(at("2026-01-01T08:10:00Z"))
      const kernel = yield* Layer.build(manualKernel(yield* tempDirectory, model, []))
      const task = yield* Context.get(kernel, Scheduler).create({ name: "Hourly", prompt: "Check", cron: "0 * * * *" })
      // A second process's scheduler: same config document and ledger, its own state.
      const other = yield* Layer.build(ManualScheduler.layer()).pipe(Effect.provide(kernel))
      yield* TestClock.setTime(at("2026-01-01T09:05:00Z"))
      const passes = yield* Effect.all(
        [
          Context.get(kernel, ManualScheduler.ManualScheduler).runDue,
          Context.get(other, ManualScheduler.ManualScheduler).runDue,
        ],
        { concurrency: 2 },
      )
      // Each pass says what it fired itself: one of them claimed the due time.
      expect(passes.map((pass) => pass.fired).sort()).toEqual([0, 1])
      expect(passes.map((pass) => pass.nextDueAt)).toEqual([
        new Date("2026-01-01T10:00:00Z"),
        new Date("2026-01-01T10:00:00Z"),
      ])
      expect(yield* Context.get(kernel, RunLedger).runs(task.id)).toMatchObject([
        { dueAt: at("2026-01-01T09:00:00Z"), status: "succeeded" },
      ])
      expect(model.calls).toHaveLength(1)
    }),
  )

  it.scoped(
    "DueRunner is the same pass: it answers how many runs it fired, each due time once beside a ManualScheduler",
    () =>
      Effect.gen(function* () {
        const model = new TestModel()
        yield* TestClock.setTime(at("2026-01-01T08:10:00Z"))
        const kernel = yield* Layer.build(manualKernel(yield* tempDirectory, model, []))
        const scheduler = Context.get(kernel, Scheduler)
        const hourly = yield* scheduler.create({ name: "Hourly", prompt: "Check", cron: "0 * * * *" })
        const once = yield* scheduler.create({ name: "Once", prompt: "Remind", runAt: "2026-01-01T09:30:00Z" })
        const runner = Context.get(
          yield* Layer.build(DueRunner.layer()).pipe(Effect.provide(kernel)),
          DueRunner.DueRunner,
        )
        expect(yield* runner.runDue).toEqual({ fired: 0 })

        yield* TestClock.setTime(at("2026-01-01T09:45:00Z"))
        expect(yield* runner.runDue).toEqual({ fired: 2 })
        expect(yield* Context.get(kernel, RunLedger).runs(hourly.id)).toMatchObject([{ status: "succeeded" }])
        expect(yield* Context.get(kernel, RunLedger).runs(once.id)).toMatchObject([{ status: "succeeded" }])
        // The one-time task is retired by the pass that ran it.
        expect((yield* scheduler.list).tasks.map((task) => task.name)).toEqual(["Hourly"])
        expect(yield* runner.runDue).toEqual({ fired: 0 })

        // Both names called at once: the 10:00 due time fires once, counted by whichever ran it.
        yield* TestClock.setTime(at("2026-01-01T10:01:00Z"))
        const [counted, manual] = yield* Effect.all(
          [runner.runDue, Context.get(kernel, ManualScheduler.ManualScheduler).runDue],
          { concurrency: 2 },
        )
        expect(manual).toMatchObject({ nextDueAt: new Date("2026-01-01T11:00:00Z"), failed: false })
        expect(model.calls).toHaveLength(3)
        expect(yield* Context.get(kernel, RunLedger).runs(hourly.id)).toHaveLength(2)
        // Whichever claimed it counts it: one run between the two answers.
        expect(counted.fired + manual.fired).toBe(1)
      }),
  )
})

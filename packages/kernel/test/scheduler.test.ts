import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AppConfig } from "../src/config/AppConfig.js"
import { Inbox } from "../src/inbox/Inbox.js"
import { taskThreadId } from "../src/scheduler/ScheduleModel.js"
import { Scheduler } from "../src/scheduler/Scheduler.js"
import { latestAtOrBefore, latestBetween, nextAfter } from "../src/time/Cron.js"
import { advanceTo, awaitRuns, eventually, fixture, ledger, settle, threadTexts } from "./support/scheduler.js"

const at = (iso: string) => Date.parse(iso)

describe("cron arithmetic", () => {
  it("follows each zone's wall clock across DST changes", () => {
    // Berlin springs forward on 2026-03-29: 02:30 does not exist and fires at 03:30 CEST.
    expect(new Date(nextAfter("30 2 * * *", "Europe/Berlin", at("2026-03-28T12:00:00Z"))!).toISOString()).toBe(
      "2026-03-29T01:30:00.000Z",
    )
    expect(new Date(nextAfter("30 2 * * *", "Europe/Berlin", at("2026-03-29T01:30:00Z"))!).toISOString()).toBe(
      "2026-03-30T00:30:00.000Z",
    )
    // New York springs forward on 2026-03-08, falls back on 2026-11-01 (01:30 happens twice, fires once).
    expect(new Date(nextAfter("0 9 * * *", "America/New_York", at("2026-03-07T15:00:00Z"))!).toISOString()).toBe(
      "2026-03-08T13:00:00.000Z",
    )
    const first = nextAfter("30 1 * * *", "America/New_York", at("2026-10-31T12:00:00Z"))!
    expect(new Date(first).toISOString()).toBe("2026-11-01T05:30:00.000Z")
    expect(new Date(nextAfter("30 1 * * *", "America/New_York", first)!).toISOString()).toBe("2026-11-02T06:30:00.000Z")
    // Sydney leaves daylight time on 2026-04-05 (UTC+11 → UTC+10).
    expect(new Date(nextAfter("0 9 * * *", "Australia/Sydney", at("2026-04-04T12:00:00Z"))!).toISOString()).toBe(
      "2026-04-04T23:00:00.000Z",
    )
    expect(new Date(latestAtOrBefore("0 * * * *", "UTC", at("2026-01-01T05:30:00Z"))!).toISOString()).toBe(
      "2026-01-01T05:00:00.000Z",
    )
    // `prev` alone misses an occurrence moved by DST; the catch-up search does not.
    expect(latestAtOrBefore("30 2 * * *", "Europe/Berlin", at("2026-03-29T01:30:00Z"))).toBe(at("2026-03-28T01:30:00Z"))
    expect(latestBetween("30 2 * * *", "Europe/Berlin", at("2026-03-28T12:00:00Z"), at("2026-03-29T01:30:00Z"))).toBe(
      at("2026-03-29T01:30:00Z"),
    )
  })
})

describe("firing", () => {
  it.scoped("a Berlin task fires at 03:30 CEST on the night 02:30 does not exist, then at 02:30 again", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      yield* TestClock.setTime(at("2026-03-28T12:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({
            name: "Night job",
            prompt: "Tidy up",
            cron: "30 2 * * *",
            timezone: "Europe/Berlin",
          })
          expect(task).toMatchObject({ enabled: true, isRunning: false, nextRun: new Date("2026-03-29T01:30:00Z") })
          yield* advanceTo(at("2026-03-29T01:30:00Z"))
          expect(yield* awaitRuns(task.id, 1)).toMatchObject([
            { dueAt: "2026-03-29T01:30:00.000Z", status: "succeeded" },
          ])
          expect((yield* scheduler.get(task.id)).nextRun).toEqual(new Date("2026-03-30T00:30:00Z"))
          // The prompt ran in the task's own thread.
          expect(yield* threadTexts(taskThreadId(task.id))).toEqual(["Tidy up", "Done."])
          expect(model.calls).toHaveLength(1)
        }),
      )
    }),
  )

  it.scoped("a one-time task fires once at runAt, delivers to the web inbox and is removed", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.reply = () => "Your reminder: call Bob."
      yield* TestClock.setTime(at("2026-01-01T08:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({
            name: "Reminder",
            prompt: "Remind me to call Bob",
            runAt: "2026-01-01T09:00:00Z",
            destination: "Web Inbox",
          })
          expect(task.nextRun).toEqual(new Date("2026-01-01T09:00:00Z"))
          yield* advanceTo(at("2026-01-01T09:00:00Z"))
          const runs = yield* awaitRuns(task.id, 1)
          expect(runs).toMatchObject([{ status: "succeeded", inboxMessageId: expect.any(String) }])
          const inbox = yield* Inbox
          expect(yield* inbox.get(runs[0]!.inboxMessageId!)).toMatchObject({
            subject: "Reminder",
            body: "Your reminder: call Bob.",
            threadId: taskThreadId(task.id),
            destination: "web",
            status: "sent",
          })
          yield* eventually(
            Effect.map(scheduler.list, (list) => list.tasks.length === 0),
            "the one-time task is removed",
          )
        }),
      )
    }),
  )

  it.scoped("a task with maxRuns runs that many times, then is removed", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:00:30Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({ name: "Twice", prompt: "Ping", cron: "* * * * *", maxRuns: 2 })
          yield* advanceTo(at("2026-01-01T00:01:00Z"))
          yield* awaitRuns(task.id, 1)
          yield* advanceTo(at("2026-01-01T00:02:00Z"))
          yield* awaitRuns(task.id, 2)
          yield* eventually(
            Effect.map(scheduler.list, (list) => list.tasks.length === 0),
            "the task is removed after its last run",
          )
          yield* TestClock.adjust("10 minutes")
          yield* settle
          expect(yield* ledger(task.id)).toHaveLength(2)
          expect(model.calls).toHaveLength(2)
        }),
      )
    }),
  )

  it.scoped("disabled tasks and the master flag stop firing; re-enabling owes nothing from before", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const config = yield* AppConfig
          const off = yield* scheduler.create({ name: "Off", prompt: "x", cron: "0 * * * *", enabled: false })
          expect(off.nextRun).toBeNull()
          const on = yield* scheduler.create({ name: "On", prompt: "y", cron: "0 * * * *" })
          yield* config.patch({ schedule: { enabled: false } })
          const list = yield* scheduler.list
          expect(list.enabled).toBe(false)
          expect(list.tasks.map((task) => task.nextRun)).toEqual([null, null])
          yield* TestClock.adjust("3 hours")
          yield* settle
          expect(model.calls).toHaveLength(0)

          yield* config.patch({ schedule: { enabled: true } })
          yield* scheduler.update(off.id, { enabled: true })
          yield* settle
          // Nothing is caught up for the hours the schedule was off.
          expect(model.calls).toHaveLength(0)
          expect((yield* scheduler.get(on.id)).nextRun).toEqual(new Date("2026-01-01T04:00:00Z"))
          yield* advanceTo(at("2026-01-01T04:00:00Z"))
          yield* awaitRuns(on.id, 1)
          yield* awaitRuns(off.id, 1)
          expect(model.calls).toHaveLength(2)
        }),
      )
    }),
  )

  it.scoped("a due time that comes while the previous run still goes is skipped, not queued", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.hold = true
      yield* TestClock.setTime(at("2026-01-01T00:00:30Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({ name: "Slow", prompt: "Think hard", cron: "* * * * *" })
          yield* advanceTo(at("2026-01-01T00:01:00Z"))
          yield* eventually(
            Effect.sync(() => model.calls.length === 1),
            "the first run calls the model",
          )
          expect((yield* scheduler.get(task.id)).isRunning).toBe(true)
          yield* advanceTo(at("2026-01-01T00:02:00Z"))
          yield* eventually(
            Effect.map(ledger(task.id), (rows) => rows.some((row) => row.status === "skipped")),
            "the second due time is skipped",
          )
          model.release()
          expect(yield* awaitRuns(task.id, 2)).toMatchObject([
            { dueAt: "2026-01-01T00:01:00.000Z", status: "succeeded" },
            { dueAt: "2026-01-01T00:02:00.000Z", status: "skipped", error: "the previous run was still going" },
          ])
          expect(model.calls).toHaveLength(1)
          yield* eventually(
            Effect.map(scheduler.get(task.id), (view) => !view.isRunning),
            "isRunning turns false",
          )
        }),
      )
    }),
  )

  it.scoped("a result for a failing channel ends failed after retries, and stays in the web inbox", () =>
    Effect.gen(function* () {
      const { run } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T08:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const inbox = yield* Inbox
          const task = yield* scheduler.create({
            name: "Page me",
            prompt: "Status?",
            runAt: "2026-01-01T08:00:05Z",
            destination: "pager",
          })
          yield* advanceTo(at("2026-01-01T08:00:05Z"))
          const [row] = yield* awaitRuns(task.id, 1)
          const id = row!.inboxMessageId!
          // Attempt 1 fails at once; attempt 2 after a 1 s backoff.
          yield* eventually(
            Effect.gen(function* () {
              const message = yield* inbox.get(id)
              if (message.status === "pending") yield* TestClock.adjust("1 second")
              return message.status === "failed"
            }),
            "the delivery fails",
          )
          expect(yield* inbox.list()).toMatchObject([
            { id, subject: "Page me", destination: "pager", status: "failed" },
          ])
        }),
      )
    }),
  )
})

describe("restart", () => {
  it.scoped("after downtime, a recurring task catches up once and a one-time task fires once; never twice", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:30:00Z"))
      const ids = yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const hourly = yield* scheduler.create({ name: "Hourly", prompt: "Tick", cron: "0 * * * *" })
          const once = yield* scheduler.create({ name: "Once", prompt: "Tock", runAt: "2026-01-01T02:30:00Z" })
          return { hourly: hourly.id, once: once.id }
        }),
      )
      // Down from 00:30 to 05:30: five hourly due times and the one-time task were missed.
      yield* TestClock.setTime(at("2026-01-01T05:30:00Z"))
      yield* run(
        Effect.gen(function* () {
          expect(yield* awaitRuns(ids.hourly, 1)).toMatchObject([
            { dueAt: "2026-01-01T05:00:00.000Z", status: "succeeded" },
          ])
          expect(yield* awaitRuns(ids.once, 1)).toMatchObject([
            { dueAt: "2026-01-01T02:30:00.000Z", status: "succeeded" },
          ])
          const scheduler = yield* Scheduler
          yield* eventually(
            Effect.map(scheduler.list, (list) => list.tasks.length === 1),
            "the one-time task is removed",
          )
          expect((yield* scheduler.get(ids.hourly)).nextRun).toEqual(new Date("2026-01-01T06:00:00Z"))
        }),
      )
      // Another restart at the same time: the ledger already holds those due times.
      yield* run(
        Effect.gen(function* () {
          yield* settle
          expect(yield* ledger(ids.hourly)).toHaveLength(1)
          expect(yield* ledger(ids.once)).toHaveLength(1)
        }),
      )
      expect(model.calls).toHaveLength(2)
    }),
  )
})

describe("editing", () => {
  it.scoped("validates tasks with clear messages", () =>
    Effect.gen(function* () {
      const { run } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const problem = (body: unknown) =>
            Effect.map(Effect.flip(scheduler.create(body as never)), (error) => (error as { message: string }).message)
          expect(yield* problem({ name: "a", prompt: "b" })).toMatch(/cron or runAt is required/)
          expect(yield* problem({ name: "a", prompt: "b", cron: "* * * * *", runAt: "2027-01-01T00:00:00Z" })).toMatch(
            /not both/,
          )
          expect(yield* problem({ name: "a", prompt: "b", cron: "every day" })).toMatch(
            /^cron: invalid cron expression/,
          )
          expect(yield* problem({ name: "a", prompt: "b", runAt: "2025-01-01T00:00:00Z" })).toMatch(
            /runAt must be in the future/,
          )
          expect(yield* problem({ name: "a", prompt: "b", runAt: "tomorrow" })).toMatch(/^runAt: invalid timestamp/)
          expect(yield* problem({ name: "a", prompt: "b", cron: "* * * * *", timezone: "Mars/Olympus" })).toMatch(
            /^timezone: unknown time zone/,
          )
          expect(yield* problem({ name: "a", prompt: "b", runAt: "2027-01-01T00:00:00Z", maxRuns: 2 })).toMatch(
            /maxRuns applies to recurring/,
          )
          expect(yield* problem({ name: "a", prompt: "b", cron: "* * * * *", maxRuns: 0 })).toMatch(
            /^maxRuns: must be a positive integer/,
          )
          expect(yield* problem({ name: "a", prompt: "b", cron: "* * * * *", destination: "carrier pigeon" })).toMatch(
            /unknown destination "carrier pigeon" \(available: Web Inbox, pager, browser\)/,
          )
          expect(yield* problem({ prompt: "b", cron: "* * * * *" })).toMatch(/^name: is required/)
        }),
      )
    }),
  )

  it.scoped("PATCH semantics: null clears, cron clears runAt and vice versa", () =>
    Effect.gen(function* () {
      const { run } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:00:00Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const task = yield* scheduler.create({
            name: "T",
            prompt: "p",
            cron: "0 8 * * *",
            maxRuns: 3,
            timezone: "Europe/Paris",
          })
          const cleared = yield* scheduler.update(task.id, { maxRuns: null, timezone: null })
          expect(cleared).not.toHaveProperty("maxRuns")
          expect(cleared).not.toHaveProperty("timezone")
          const once = yield* scheduler.update(task.id, { runAt: "2026-02-01T00:00:00Z" })
          expect(once).toMatchObject({ runAt: "2026-02-01T00:00:00Z", nextRun: new Date("2026-02-01T00:00:00Z") })
          expect(once).not.toHaveProperty("cron")
          const again = yield* scheduler.update(task.id, { cron: "0 9 * * *" })
          expect(again).toMatchObject({ cron: "0 9 * * *", nextRun: new Date("2026-01-01T09:00:00Z") })
          expect(again).not.toHaveProperty("runAt")
          expect(yield* Effect.flip(scheduler.update(task.id, { cron: null }))).toMatchObject({
            _tag: "InvalidSchedule",
          })
          expect(yield* Effect.flip(scheduler.update("nope", { name: "x" }))).toMatchObject({ _tag: "TaskNotFound" })
          yield* scheduler.delete(task.id)
          expect(yield* Effect.flip(scheduler.get(task.id))).toMatchObject({ _tag: "TaskNotFound" })
        }),
      )
    }),
  )
})

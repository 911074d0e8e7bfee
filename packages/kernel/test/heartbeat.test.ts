import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AppConfig } from "../src/config/AppConfig.js"
import { Inbox } from "../src/inbox/Inbox.js"
import { isNothingToReport } from "../src/scheduler/PromptRunner.js"
import { Scheduler } from "../src/scheduler/Scheduler.js"
import { advanceTo, awaitRuns, eventually, fixture, ledger, threadTexts } from "./support/scheduler.js"

const at = (iso: string) => Date.parse(iso)
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe("the heartbeat", () => {
  it("'nothing to report' is the token alone, maybe decorated", () => {
    expect(isNothingToReport("HEARTBEAT_OK")).toBe(true)
    expect(isNothingToReport("  **HEARTBEAT_OK**.\n")).toBe(true)
    expect(isNothingToReport("HEARTBEAT_OK, but the disk is full")).toBe(false)
    expect(isNothingToReport("The disk is full")).toBe(false)
  })

  it.scoped("is off by default, every 30 minutes, with an empty checklist", () =>
    Effect.gen(function* () {
      const { run } = yield* fixture
      yield* run(
        Effect.gen(function* () {
          expect(yield* (yield* Scheduler).heartbeat).toEqual({
            enabled: false,
            cron: "*/30 * * * *",
            tasks: [],
            destination: null,
            activeHours: null,
            nextRun: null,
            isRunning: false,
          })
        }),
      )
    }),
  )

  it.scoped("makes no model call when no checklist item is enabled", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      yield* TestClock.setTime(at("2026-01-01T00:00:10Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const heartbeat = yield* scheduler.updateHeartbeat({
            enabled: true,
            tasks: [{ description: "Check the backups", enabled: false }],
          })
          expect(heartbeat.tasks).toEqual([
            { id: expect.stringMatching(uuid), description: "Check the backups", enabled: false },
          ])
          expect(heartbeat.nextRun).toEqual(new Date("2026-01-01T00:30:00Z"))
          yield* advanceTo(at("2026-01-01T00:30:00Z"))
          expect(yield* awaitRuns("heartbeat", 1)).toMatchObject([
            { status: "skipped", error: "no enabled checklist item" },
          ])
          expect(model.calls).toHaveLength(0)
        }),
      )
    }),
  )

  it.scoped("delivers nothing on HEARTBEAT_OK, a report otherwise, and keeps every beat in one thread", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.reply = (n) => (n === 1 ? "HEARTBEAT_OK" : "The nightly backup failed.")
      yield* TestClock.setTime(at("2026-01-01T00:00:10Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const inbox = yield* Inbox
          yield* scheduler.updateHeartbeat({
            enabled: true,
            tasks: [
              { description: "Check the backups", enabled: true },
              { description: "Water the plants", enabled: false },
            ],
          })
          yield* advanceTo(at("2026-01-01T00:30:00Z"))
          yield* awaitRuns("heartbeat", 1)
          expect(yield* inbox.list()).toEqual([])
          expect(model.calls[0]).toContain("Check the backups")
          expect(model.calls[0]).not.toContain("Water the plants")
          expect(model.calls[0]).toContain("HEARTBEAT_OK")

          yield* advanceTo(at("2026-01-01T01:00:00Z"))
          const runs = yield* awaitRuns("heartbeat", 2)
          expect(runs.map((row) => row.status)).toEqual(["succeeded", "succeeded"])
          expect(yield* inbox.list()).toMatchObject([
            {
              id: runs[1]!.inboxMessageId,
              subject: "Heartbeat",
              body: "The nightly backup failed.",
              threadId: "heartbeat",
              destination: "web",
            },
          ])
          expect((yield* threadTexts("heartbeat")).length).toBe(4)
        }),
      )
    }),
  )

  it.scoped("beats only within activeHours, also across midnight, in the configured time zone", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.reply = () => "HEARTBEAT_OK"
      // 21:30 in Tokyo (UTC+9).
      yield* TestClock.setTime(at("2026-01-01T12:30:00Z"))
      yield* run(
        Effect.gen(function* () {
          yield* (yield* AppConfig).patch({ timezone: "Asia/Tokyo" })
          const scheduler = yield* Scheduler
          const heartbeat = yield* scheduler.updateHeartbeat({
            enabled: true,
            cron: "0 * * * *",
            tasks: [{ description: "Anything urgent?" }],
            activeHours: { start: "22:00", end: "01:00" },
          })
          expect(heartbeat.activeHours).toEqual({ start: "22:00", end: "01:00" })
          expect(heartbeat.nextRun).toEqual(new Date("2026-01-01T13:00:00Z"))
          for (const hour of ["13", "14", "15", "16"]) yield* advanceTo(at(`2026-01-01T${hour}:00:00Z`))
          const runs = yield* awaitRuns("heartbeat", 4)
          expect(runs.map((row) => [row.dueAt.slice(11, 16), row.status])).toEqual([
            ["13:00", "succeeded"], // 22:00 JST
            ["14:00", "succeeded"], // 23:00
            ["15:00", "succeeded"], // 00:00, past midnight
            ["16:00", "skipped"], // 01:00: the window has closed
          ])
          expect(model.calls).toHaveLength(3)
          // The next beat that will run is 22:00 JST the next day.
          expect((yield* scheduler.heartbeat).nextRun).toEqual(new Date("2026-01-02T13:00:00Z"))
          // null clears the window.
          expect((yield* scheduler.updateHeartbeat({ activeHours: null })).activeHours).toBeNull()
        }),
      )
    }),
  )

  it.scoped("disabling it stops a beat in progress at once", () =>
    Effect.gen(function* () {
      const { run, model } = yield* fixture
      model.hold = true
      yield* TestClock.setTime(at("2026-01-01T00:00:10Z"))
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          yield* scheduler.updateHeartbeat({ enabled: true, tasks: [{ description: "Slow check" }] })
          yield* advanceTo(at("2026-01-01T00:30:00Z"))
          yield* eventually(
            Effect.sync(() => model.calls.length === 1),
            "the beat calls the model",
          )
          expect((yield* scheduler.heartbeat).isRunning).toBe(true)
          const off = yield* scheduler.updateHeartbeat({ enabled: false })
          expect(off).toMatchObject({ enabled: false, nextRun: null })
          expect(yield* awaitRuns("heartbeat", 1)).toMatchObject([{ status: "failed", error: "interrupted" }])
          expect((yield* scheduler.heartbeat).isRunning).toBe(false)
          expect(yield* ledger("heartbeat")).toHaveLength(1)
        }),
      )
    }),
  )

  it.scoped("rejects a bad cron, time window or destination with a clear message", () =>
    Effect.gen(function* () {
      const { run } = yield* fixture
      yield* run(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler
          const problem = (body: unknown) =>
            Effect.map(
              Effect.flip(scheduler.updateHeartbeat(body as never)),
              (error) => (error as { message: string }).message,
            )
          expect(yield* problem({ cron: "soon" })).toMatch(/^cron: invalid cron expression/)
          expect(yield* problem({ activeHours: { start: "25:00", end: "06:00" } })).toMatch(
            /^activeHours.start: "25:00" is not a time of day/,
          )
          expect(yield* problem({ destination: "nowhere" })).toMatch(/unknown destination "nowhere"/)
          expect(yield* problem({ nextRun: "2020-01-01T00:00:00Z", enabled: "yes" })).toMatch(/^enabled:/)
          expect(yield* problem({ enabled: null })).toMatch(/enabled cannot be null/)
        }),
      )
    }),
  )
})

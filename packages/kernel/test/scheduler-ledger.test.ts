import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream, TestClock } from "effect"
import { Chat, type ChatInput } from "../src/chat/Chat.js"
import * as AppConfig from "../src/config/AppConfig.js"
import * as Ids from "../src/ids/Ids.js"
import { Inbox } from "../src/inbox/Inbox.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import { type ClaimRequest, RunLedger, type RunRecord, type TaskState } from "../src/scheduler/RunLedger.js"
import * as Scheduler from "../src/scheduler/Scheduler.js"
import { StorageError } from "../src/storage/StorageError.js"
import { Threads } from "../src/threads/Threads.js"
import { advanceTo, eventually, settle } from "./support/scheduler.js"

/**
 * Issue 10: the scheduler's logic needs a `RunLedger`, not SQL. Here it runs on memory alone
 * (config, ledger, and stand-ins for chat, threads and inbox): no `SqlClient` anywhere.
 */

const at = (iso: string) => Date.parse(iso)

/** A `RunLedger` in memory that keeps every call it answers, for the test to read. */
class MemoryLedger {
  readonly states = new Map<string, TaskState>()
  readonly records = new Map<string, RunRecord & { readonly taskId: string; readonly startedAt: number }>()
  readonly claims: Array<ClaimRequest> = []
  readonly housekeeping: Array<string> = []
  readonly forgotten: Array<string> = []
  /** Answers every claim as already won elsewhere (another replica). */
  refuseClaims = false
  /** How many `forgetTask` calls fail (a database hiccup) before they work again. */
  failingForgets = 0

  readonly service = RunLedger.of({
    states: Effect.sync(() => new Map(this.states)),
    ensureState: (taskId, cursor) =>
      Effect.sync(() => {
        if (!this.states.has(taskId)) this.states.set(taskId, { runCount: 0, cursor })
      }),
    moveCursor: (taskId, cursor) =>
      Effect.sync(() => this.states.set(taskId, { runCount: this.states.get(taskId)?.runCount ?? 0, cursor })),
    claim: (request) =>
      Effect.sync(() => {
        this.claims.push(request)
        const key = `${request.taskId}|${request.dueAt}`
        if (this.refuseClaims || this.records.has(key)) return { claimed: false } as const
        // The run counts here: the scheduler takes the count from this answer.
        this.records.set(key, {
          taskId: request.taskId,
          dueAt: request.dueAt,
          status: request.status,
          error: null,
          inboxMessageId: null,
          startedAt: request.now,
        })
        const previous = this.states.get(request.taskId)
        const runCount = (previous?.runCount ?? 0) + (request.status === "running" ? 1 : 0)
        this.states.set(request.taskId, { runCount, cursor: Math.max(previous?.cursor ?? 0, request.dueAt) })
        return { claimed: true, runCount } as const
      }),
    finish: (taskId, dueAt, outcome) =>
      Effect.sync(() => {
        const record = this.records.get(`${taskId}|${dueAt}`)
        if (record === undefined) return
        this.records.set(`${taskId}|${dueAt}`, {
          ...record,
          status: outcome.status,
          error: outcome.error ?? null,
          inboxMessageId: outcome.inboxMessageId ?? null,
        })
      }),
    runningTaskIds: (now, staleAfterMillis) =>
      Effect.sync(
        () =>
          new Set(
            [...this.records.values()]
              .filter((record) => record.status === "running" && record.startedAt > now - staleAfterMillis)
              .map((record) => record.taskId),
          ),
      ),
    failAbandoned: (now, staleAfterMillis) =>
      Effect.sync(
        () => void this.housekeeping.push(`failAbandoned ${new Date(now).toISOString()} ${staleAfterMillis}`),
      ),
    pruneFinished: (now, keepMillis) =>
      Effect.sync(() => void this.housekeeping.push(`pruneFinished ${new Date(now).toISOString()} ${keepMillis}`)),
    forgetTask: (taskId) =>
      this.failingForgets > 0
        ? Effect.suspend(() => {
            this.failingForgets--
            return Effect.fail(new StorageError({ message: "forgetting a task failed" }))
          })
        : Effect.sync(() => {
            this.forgotten.push(taskId)
            this.states.delete(taskId)
          }),
    runs: (taskId) =>
      Effect.sync(() =>
        [...this.records.values()]
          .filter((record) => record.taskId === taskId)
          .sort((a, b) => b.dueAt - a.dueAt)
          .map(({ dueAt, status, error, inboxMessageId }) => ({ dueAt, status, error, inboxMessageId })),
      ),
  })
}

/** Chat, threads and inbox reduced to what a task run without destination uses; `prompts` lists what was sent. */
const standIns = (prompts: Array<string>) =>
  Layer.mergeAll(
    Layer.succeed(Chat, {
      send: (input: ChatInput) =>
        Effect.sync(() => {
          prompts.push(input.parts.map((part) => (part.type === "text" ? part.text : "")).join(""))
          return { threadId: input.threadId ?? "thread", runId: `run-${prompts.length}`, events: Stream.empty }
        }),
      stop: () => Effect.succeed(false),
    } as unknown as Chat["Type"]),
    Layer.succeed(Threads, {
      ensure: (id: string) => Effect.succeed({ thread: { id, title: "titled" }, created: false }),
      messages: () => Effect.succeed([]),
    } as unknown as Threads["Type"]),
    Layer.succeed(Inbox, {
      destinations: Effect.succeed(["Web Inbox"]),
    } as unknown as Inbox["Type"]),
  )

/** The scheduler's own Layer given `ledger`, on memory only: its type says it needs nothing more. */
const schedulerOn = (
  ledger: MemoryLedger,
  prompts: Array<string>,
  options?: Scheduler.SchedulerOptions,
): Layer.Layer<Scheduler.Scheduler> =>
  Layer.orDie(
    Scheduler.layer(options).pipe(
      Layer.provide([
        Layer.succeed(RunLedger, ledger.service),
        AppConfig.layerMemory.pipe(Layer.provide(ModelRegistry.layer({ env: {} }))),
        Ids.layer,
        standIns(prompts),
      ]),
    ),
  )

describe("a RunLedger given to Scheduler.layer", () => {
  it.scoped("is the ledger a firing task is claimed, counted, recorded and finally forgotten in", () =>
    Effect.gen(function* () {
      const ledger = new MemoryLedger()
      const prompts: Array<string> = []
      yield* TestClock.setTime(at("2026-01-01T08:00:00Z"))
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        const task = yield* scheduler.create({ name: "Reminder", prompt: "Call Bob", runAt: "2026-01-01T09:00:00Z" })
        expect(ledger.states.get(task.id)).toEqual({ runCount: 0, cursor: 0 })
        yield* advanceTo(at("2026-01-01T09:00:00Z"))
        yield* eventually(
          Effect.map(ledger.service.runs(task.id), (runs) => runs.some((run) => run.status !== "running")),
          "the run is recorded",
        )
        expect(ledger.claims).toEqual([
          {
            taskId: task.id,
            dueAt: at("2026-01-01T09:00:00Z"),
            status: "running",
            owner: expect.any(String),
            now: at("2026-01-01T09:00:00Z"),
          },
        ])
        expect(yield* ledger.service.runs(task.id)).toEqual([
          { dueAt: at("2026-01-01T09:00:00Z"), status: "succeeded", error: null, inboxMessageId: null },
        ])
        expect(prompts).toEqual(["Call Bob"])
        // Fired once, the one-time task leaves the config document, and its state the ledger.
        yield* eventually(
          Effect.sync(() => ledger.forgotten.includes(task.id)),
          "the ledger forgets the removed task",
        )
        expect((yield* scheduler.list).tasks).toEqual([])
      }).pipe(Effect.provide(schedulerOn(ledger, prompts)))
    }),
  )

  it.scoped("a config change it fails to record is retried a minute later; the loop goes on firing", () =>
    Effect.gen(function* () {
      const ledger = new MemoryLedger()
      const prompts: Array<string> = []
      yield* TestClock.setTime(at("2026-01-01T08:00:30Z"))
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        yield* scheduler.create({ name: "Hourly", prompt: "Check the weather", cron: "0 * * * *" })
        const doomed = yield* scheduler.create({ name: "Doomed", prompt: "Never", cron: "30 * * * *" })
        yield* settle
        ledger.failingForgets = 1
        yield* scheduler.delete(doomed.id)
        // The removal reaches the ledger on the retry, a minute after the failed attempt.
        yield* advanceTo(at("2026-01-01T08:01:30Z"))
        yield* eventually(
          Effect.sync(() => ledger.forgotten.includes(doomed.id)),
          "the removed task is forgotten on the retry",
        )
        yield* advanceTo(at("2026-01-01T09:00:00Z"))
        yield* eventually(
          Effect.sync(() => prompts.includes("Check the weather")),
          "the other task still fires",
        )
        expect(prompts).toEqual(["Check the weather"])
      }).pipe(Effect.provide(schedulerOn(ledger, prompts)))
    }),
  )

  it.scoped("decides: a due time it does not grant is not run", () =>
    Effect.gen(function* () {
      const ledger = new MemoryLedger()
      ledger.refuseClaims = true
      const prompts: Array<string> = []
      yield* TestClock.setTime(at("2026-01-01T08:00:30Z"))
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        const task = yield* scheduler.create({ name: "Ping", prompt: "Ping", cron: "* * * * *" })
        yield* advanceTo(at("2026-01-01T08:01:00Z"))
        yield* eventually(
          Effect.sync(() => ledger.claims.length === 1),
          "the due time is offered to the ledger",
        )
        yield* settle
        expect(ledger.claims[0]).toMatchObject({ taskId: task.id, dueAt: at("2026-01-01T08:01:00Z") })
        expect(prompts).toEqual([])
        expect((yield* scheduler.get(task.id)).nextRun).toEqual(new Date("2026-01-01T08:02:00Z"))
      }).pipe(Effect.provide(schedulerOn(ledger, prompts)))
    }),
  )

  it.scoped("counts the runs: a task at maxRuns by the ledger's count is finished", () =>
    Effect.gen(function* () {
      const ledger = new MemoryLedger()
      const prompts: Array<string> = []
      yield* TestClock.setTime(at("2026-01-01T08:00:30Z"))
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        const task = yield* scheduler.create({ name: "Twice", prompt: "Ping", cron: "* * * * *", maxRuns: 2 })
        // One run already counted elsewhere (another replica): the next one is the last.
        ledger.states.set(task.id, { runCount: 1, cursor: at("2026-01-01T08:00:30Z") })
        yield* advanceTo(at("2026-01-01T08:01:00Z"))
        yield* eventually(
          Effect.map(scheduler.list, (list) => list.tasks.length === 0),
          "the task is removed after its second counted run",
        )
        expect(prompts).toEqual(["Ping"])
      }).pipe(Effect.provide(schedulerOn(ledger, prompts)))
    }),
  )

  it.scoped("closes abandoned runs and prunes old ones in it at start, with the configured limits", () =>
    Effect.gen(function* () {
      const ledger = new MemoryLedger()
      yield* TestClock.setTime(at("2026-01-01T08:00:00Z"))
      yield* Effect.provide(
        Scheduler.Scheduler,
        schedulerOn(ledger, [], { runTimeout: "2 minutes", ledgerRetention: "7 days" }),
      )
      // A run of another process counts as abandoned a minute after its timeout.
      expect(ledger.housekeeping).toEqual([
        `failAbandoned 2026-01-01T08:00:00.000Z ${3 * 60_000}`,
        `pruneFinished 2026-01-01T08:00:00.000Z ${7 * 24 * 60 * 60_000}`,
      ])
    }),
  )
})

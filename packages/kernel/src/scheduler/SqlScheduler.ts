import type { SqlClient } from "@effect/sql"
import { Cause, Clock, Duration, Effect, Either, FiberMap, Layer, Queue, type Scope, Stream } from "effect"
import type { Chat } from "../chat/Chat.js"
import { AppConfig } from "../config/AppConfig.js"
import type { AppConfigDocument, ScheduledTaskConfig } from "../config/ConfigModel.js"
import { Ids } from "../ids/Ids.js"
import { Inbox, webInboxLabel } from "../inbox/Inbox.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Threads } from "../threads/Threads.js"
import { nextAfter, withinHours } from "./Cron.js"
import {
  dueOf,
  type Entry,
  heartbeatActive,
  heartbeatEntry,
  heartbeatOf,
  initialCursor,
  isActive,
  messageOf,
  movedCursor,
  type ResolvedHeartbeat,
  taskEntry,
} from "./DueTimes.js"
import * as PromptRunner from "./PromptRunner.js"
import { RunLedger, type RunOutcome } from "./RunLedger.js"
import {
  type Heartbeat,
  heartbeatTaskId,
  heartbeatThreadId,
  InvalidSchedule,
  type ScheduledTask,
  TaskNotFound,
  taskThreadId,
} from "./ScheduleModel.js"
import { Scheduler } from "./Scheduler.js"
import * as SqlRunLedger from "./SqlRunLedger.js"
import { createTask, patchHeartbeat, patchTask } from "./TaskEdits.js"

export interface SchedulerOptions {
  /** Run the firing loop; default true. Off, tasks can still be edited (tests, serverless). */
  readonly enabled?: boolean
  /** Cap on model steps of a task run; default 8. */
  readonly maxSteps?: number
  /** Cap on model steps of a heartbeat beat; default 3. */
  readonly heartbeatMaxSteps?: number
  /** A run still going after this long is stopped and recorded as failed; default 10 minutes. */
  readonly runTimeout?: Duration.DurationInput
  /** Beats kept in the heartbeat thread; when it holds more, it starts afresh; default 20. */
  readonly heartbeatHistory?: number
  /** Finished ledger rows older than this are dropped at start; default 30 days. */
  readonly ledgerRetention?: Duration.DurationInput
}

export const defaults = {
  maxSteps: 8,
  heartbeatMaxSteps: 3,
  runTimeout: Duration.minutes(10),
  heartbeatHistory: 20,
  ledgerRetention: Duration.days(30),
} as const

type Outcome = RunOutcome

/**
 * The scheduler over the config document and the run ledger (the `RunLedger` service). One loop fiber
 * computes every due time, fires what is due and sleeps on Effect's `Clock` until the next one,
 * woken early by config changes. A due time is claimed in the ledger before it runs; a task
 * whose previous run is still going has its due time recorded as `skipped` (no queue). Runs are
 * fibers of a `FiberMap` keyed by task id in the layer's scope.
 */
export const make = (
  options: SchedulerOptions = {},
): Effect.Effect<Scheduler["Type"], StorageError, RunLedger | AppConfig | Chat | Threads | Inbox | Ids | Scope.Scope> =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const inbox = yield* Inbox
    const ids = yield* Ids
    const ledger = yield* RunLedger
    const runner = yield* PromptRunner.make
    const runTimeout = Duration.decode(options.runTimeout ?? defaults.runTimeout)
    const staleAfter = Duration.toMillis(runTimeout) + 60_000
    const maxSteps = options.maxSteps ?? defaults.maxSteps
    const heartbeatMaxSteps = options.heartbeatMaxSteps ?? defaults.heartbeatMaxSteps
    const heartbeatHistory = options.heartbeatHistory ?? defaults.heartbeatHistory
    const owner = yield* ids.uuid
    const fibers = yield* FiberMap.make<string>()
    const localRunning = new Set<string>()
    const wakeUp = yield* Queue.sliding<void>(1)
    const poke = Queue.offer(wakeUp, undefined)

    const start = yield* Clock.currentTimeMillis
    yield* ledger.failAbandoned(start, staleAfter)
    yield* ledger.pruneFinished(
      start,
      Duration.toMillis(Duration.decode(options.ledgerRetention ?? defaults.ledgerRetention)),
    )
    const states = new Map(yield* ledger.states)
    /** Next due times computed from an unchanged cursor and schedule: 10,000 tasks cost a map lookup each per wake. */
    const dueCache = new Map<string, { readonly key: string; readonly due: number | undefined }>()

    const cursorOf = (entry: Entry, now: number) => states.get(entry.id)?.cursor ?? initialCursor(entry, now)

    const cachedDue = (entry: Entry, now: number) => {
      const cursor = cursorOf(entry, now)
      const key = `${cursor}|${entry.cron}|${entry.runAt}|${entry.zone}`
      const cached = dueCache.get(entry.id)
      if (cached !== undefined && cached.key === key && (cached.due === undefined || cached.due > now)) {
        return cached.due
      }
      const due = dueOf(entry, cursor, now)
      dueCache.set(entry.id, { key, due })
      return due
    }

    const runningIds = (now: number) =>
      Effect.map(ledger.runningTaskIds(now, staleAfter), (running) => new Set([...running, ...localRunning]))

    // --- firing --------------------------------------------------------------------------------

    const deliver = (subject: string, body: string, threadId: string, label: string) =>
      Effect.gen(function* () {
        // A destination gone since (a channel plugin disabled) still gets the message: its
        // delivery fails and it stays readable in the web inbox.
        const destination = yield* Effect.orElseSucceed(inbox.resolveDestination(label), () => label)
        return yield* inbox.create({ subject, body, threadId, destination })
      })

    const runTask = (task: ScheduledTaskConfig) =>
      Effect.gen(function* () {
        const threadId = taskThreadId(task.id)
        yield* runner.prepare(threadId, task.name)
        const result = yield* Effect.either(runner.run(threadId, task.prompt, maxSteps))
        if (Either.isLeft(result) && result.left._tag === "ChatBusy") {
          return { status: "skipped", error: "the task's thread was busy" } satisfies Outcome
        }
        const failed = Either.isLeft(result) ? result.left.message || result.left._tag : undefined
        if (task.destination === undefined) {
          return (
            failed === undefined ? { status: "succeeded" } : { status: "failed", error: failed }
          ) satisfies Outcome
        }
        const message = Either.isRight(result)
          ? yield* deliver(task.name, result.right === "" ? "(no answer)" : result.right, threadId, task.destination)
          : yield* deliver(`${task.name} (failed)`, `The scheduled task failed: ${failed}`, threadId, task.destination)
        return {
          status: failed === undefined ? "succeeded" : "failed",
          error: failed ?? null,
          inboxMessageId: message.id,
        } satisfies Outcome
      })

    const beat = (heartbeat: ResolvedHeartbeat) =>
      Effect.gen(function* () {
        const items = heartbeat.tasks.filter((item) => item.enabled).map((item) => item.description)
        yield* runner.trim(heartbeatThreadId, heartbeatHistory * 2)
        yield* runner.prepare(heartbeatThreadId, "Heartbeat")
        const result = yield* Effect.either(
          runner.run(heartbeatThreadId, PromptRunner.heartbeatPrompt(items), heartbeatMaxSteps),
        )
        if (Either.isLeft(result)) {
          return result.left._tag === "ChatBusy"
            ? ({ status: "skipped", error: "the heartbeat thread was busy" } satisfies Outcome)
            : ({ status: "failed", error: result.left.message || result.left._tag } satisfies Outcome)
        }
        if (PromptRunner.isNothingToReport(result.right)) return { status: "succeeded" } satisfies Outcome
        const message = yield* deliver(
          "Heartbeat",
          result.right,
          heartbeatThreadId,
          heartbeat.destination ?? webInboxLabel,
        )
        return { status: "succeeded", inboxMessageId: message.id } satisfies Outcome
      })

    /** Why the heartbeat has nothing to do at `now`, before any model call. */
    const heartbeatSkip = (config: AppConfigDocument, now: number) => {
      const heartbeat = heartbeatOf(config)
      if (heartbeat.activeHours !== undefined && !withinHours(heartbeat.activeHours, now, config.timezone)) {
        return "outside active hours"
      }
      if (!heartbeat.tasks.some((item) => item.enabled)) return "no enabled checklist item"
      return undefined
    }

    /** One-time tasks and tasks at maxRuns leave the config once fired (unless edited meanwhile). */
    /**
     * Finished tasks waiting to leave the config document. They leave together, in one patch per
     * batch, from one fiber: a patch validates and stores the whole document (~60 ms with 10,000
     * tasks), so one patch per fired task would eat the process when many fire close together.
     * A batch lost to a stop is finished by the next start's first pass.
     */
    const retiring = new Map<string, { readonly task: ScheduledTaskConfig; readonly runCount: number }>()
    const retireSignal = yield* Queue.sliding<void>(1)

    const retire = (task: ScheduledTaskConfig, runCount: number) =>
      Effect.zipRight(
        Effect.sync(() => retiring.set(task.id, { task, runCount })),
        Queue.offer(retireSignal, undefined),
      )

    const retireBatch = Effect.suspend(() => {
      const batch = new Map(retiring)
      retiring.clear()
      if (batch.size === 0) return Effect.void
      return appConfig
        .modify((config) => {
          const tasks = config.schedule.tasks.filter((current) => {
            const finishedTask = batch.get(current.id)
            if (finishedTask === undefined) return true
            // Edited since it fired (a new runAt, a higher maxRuns): it stays.
            if (current.runAt !== undefined) return current.runAt !== finishedTask.task.runAt
            return current.maxRuns === undefined || finishedTask.runCount < current.maxRuns
          })
          return Effect.succeed(tasks.length === config.schedule.tasks.length ? {} : { schedule: { tasks } })
        })
        .pipe(
          Effect.catchAllCause((cause) => Effect.logError("scheduler: removing finished tasks failed", cause)),
          Effect.annotateLogs({ taskIds: Array.from(batch.keys()).join(",") }),
        )
    })

    const finished = (runCount: number, task: ScheduledTaskConfig | undefined) =>
      task !== undefined && (task.runAt !== undefined || (task.maxRuns !== undefined && runCount >= task.maxRuns))

    const execute = (
      entry: Entry,
      dueAt: number,
      run: Effect.Effect<Outcome, StorageError>,
      after: Effect.Effect<void>,
    ) =>
      Effect.gen(function* () {
        const firedAt = yield* Clock.currentTimeMillis
        yield* Effect.logInfo("scheduler: task fired").pipe(
          Effect.annotateLogs({ taskId: entry.id, dueAt: new Date(dueAt).toISOString(), lateMs: firedAt - dueAt }),
        )
        const outcome = yield* run.pipe(
          Effect.timeoutFail({
            duration: runTimeout,
            onTimeout: () => new InvalidSchedule({ message: `no result within ${Duration.format(runTimeout)}` }),
          }),
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.succeed({ status: "failed", error: messageOf(cause) } satisfies Outcome),
          ),
        )
        // One line per outcome; a failure is a warning (its error says why, never the prompt's answer).
        const finished = {
          taskId: entry.id,
          status: outcome.status,
          durationMs: (yield* Clock.currentTimeMillis) - firedAt,
        }
        if (outcome.status === "failed") {
          yield* Effect.logWarning(`scheduler: run failed: ${outcome.error}`).pipe(Effect.annotateLogs(finished))
        } else {
          yield* Effect.logInfo("scheduler: task finished").pipe(Effect.annotateLogs(finished))
        }
        yield* ledger.finish(entry.id, dueAt, outcome, yield* Clock.currentTimeMillis)
        yield* after
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            ledger.finish(entry.id, dueAt, { status: "failed", error: "interrupted" }, now),
          ).pipe(Effect.ignore),
        ),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("scheduler: run failed", cause),
        ),
        Effect.ensuring(
          Effect.zipRight(
            Effect.sync(() => localRunning.delete(entry.id)),
            poke,
          ),
        ),
        Effect.annotateLogs({ taskId: entry.id, dueAt: new Date(dueAt).toISOString() }),
      )

    /** Claims `dueAt` for the entry and starts its run (or records it skipped). */
    const fire = (config: AppConfigDocument, entry: Entry, dueAt: number, now: number) =>
      Effect.gen(function* () {
        const isHeartbeat = entry.id === heartbeatTaskId
        const busy = localRunning.has(entry.id) || (yield* ledger.runningTaskIds(now, staleAfter)).has(entry.id)
        const skip = busy ? "the previous run was still going" : isHeartbeat ? heartbeatSkip(config, now) : undefined
        const claim = yield* ledger.claim({
          taskId: entry.id,
          dueAt,
          status: skip === undefined ? "running" : "skipped",
          owner,
          now,
        })
        const previous = states.get(entry.id)
        states.set(entry.id, {
          runCount: claim.claimed ? claim.runCount : (previous?.runCount ?? 0),
          cursor: Math.max(previous?.cursor ?? 0, dueAt),
        })
        if (!claim.claimed) return
        if (skip !== undefined) {
          yield* ledger.finish(entry.id, dueAt, { status: "skipped", error: skip }, now)
          const task = config.schedule.tasks.find((candidate) => candidate.id === entry.id)
          if (finished(claim.runCount, task) && task?.runAt !== undefined) yield* retire(task, claim.runCount)
          return
        }
        localRunning.add(entry.id)
        const task = config.schedule.tasks.find((candidate) => candidate.id === entry.id)
        const effect = isHeartbeat
          ? execute(entry, dueAt, beat(heartbeatOf(config)), Effect.void)
          : execute(
              entry,
              dueAt,
              runTask(task!),
              finished(claim.runCount, task) ? retire(task!, claim.runCount) : Effect.void,
            )
        yield* FiberMap.run(fibers, entry.id, effect)
      })

    // --- the loop ------------------------------------------------------------------------------

    const setCursor = (id: string, cursor: number) =>
      Effect.zipRight(
        Effect.sync(() => states.set(id, { runCount: states.get(id)?.runCount ?? 0, cursor })),
        ledger.moveCursor(id, cursor),
      )

    /**
     * Applies what a config change means for the runtime state: a new or re-enabled schedule owes
     * nothing from before (its cursor moves to now), a new runAt is due again, a removed task is
     * forgotten, and a disabled heartbeat stops at once.
     */
    const reconcile = (before: AppConfigDocument, after: AppConfigDocument, now: number) =>
      Effect.gen(function* () {
        const previous = new Map(before.schedule.tasks.map((task) => [task.id, task]))
        for (const task of after.schedule.tasks) {
          const old = previous.get(task.id)
          previous.delete(task.id)
          if (old === undefined) continue
          const cursor = movedCursor(before, old, after, task, now)
          if (cursor !== undefined) yield* setCursor(task.id, cursor)
        }
        for (const id of previous.keys()) {
          states.delete(id)
          dueCache.delete(id)
          yield* ledger.forgetTask(id)
        }
        const hbBefore = heartbeatOf(before)
        const hbAfter = heartbeatOf(after)
        if (!heartbeatActive(after)) {
          yield* FiberMap.remove(fibers, heartbeatTaskId)
        } else if (!heartbeatActive(before) || hbBefore.cron !== hbAfter.cron || before.timezone !== after.timezone) {
          yield* setCursor(heartbeatTaskId, now)
        }
      })

    /** Fires what is due; answers when to wake next (Infinity: only a change wakes us). */
    const tick = (config: AppConfigDocument) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (!config.schedule.enabled) return Number.POSITIVE_INFINITY
        const entries: Array<Entry> = config.schedule.tasks
          .filter((task) => task.enabled !== false)
          .map((task) => taskEntry(config, task))
        if (heartbeatOf(config).enabled) entries.push(heartbeatEntry(config))
        let wake = Number.POSITIVE_INFINITY
        for (const entry of entries) {
          if (!states.has(entry.id)) {
            const cursor = initialCursor(entry, now)
            states.set(entry.id, { runCount: 0, cursor })
            yield* ledger.ensureState(entry.id, cursor)
          }
          let due = cachedDue(entry, now)
          if (due !== undefined && due <= now) {
            yield* fire(config, entry, due, now)
            due = cachedDue(entry, now)
          }
          if (due === undefined) {
            // Claimed before a restart, but never removed: finish the job.
            const task = config.schedule.tasks.find((candidate) => candidate.id === entry.id)
            if (task?.runAt !== undefined && !localRunning.has(task.id)) yield* retire(task, 0)
            continue
          }
          if (due > now) wake = Math.min(wake, due)
        }
        // A recurring task that reached maxRuns before a restart and was never removed.
        for (const task of config.schedule.tasks) {
          const runCount = states.get(task.id)?.runCount ?? 0
          if (task.maxRuns !== undefined && runCount >= task.maxRuns && !localRunning.has(task.id)) {
            yield* retire(task, runCount)
          }
        }
        return wake
      })

    const loop = Effect.gen(function* () {
      let previous = yield* appConfig.get
      while (true) {
        // Wake-ups from before this read are answered by it; later ones wake the sleep below.
        yield* Queue.takeAll(wakeUp)
        const config = yield* appConfig.get
        if (config !== previous) {
          yield* reconcile(previous, config, yield* Clock.currentTimeMillis)
          previous = config
        }
        const wake = yield* tick(config).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError("scheduler: tick failed; retrying in a minute", cause), 0),
          ),
        )
        const now = yield* Clock.currentTimeMillis
        const delay = wake === 0 ? 60_000 : wake - now
        if (delay === Number.POSITIVE_INFINITY) yield* Queue.take(wakeUp)
        else yield* Effect.raceFirst(Effect.sleep(Duration.millis(Math.max(0, delay))), Queue.take(wakeUp))
      }
    })

    if (options.enabled !== false) {
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(retireSignal), retireBatch)))
      yield* Effect.forkScoped(Stream.runForEach(Stream.drop(appConfig.changes, 1), () => poke))
      yield* Effect.forkScoped(loop)
    }

    // --- the API -------------------------------------------------------------------------------

    const view = (config: AppConfigDocument, task: ScheduledTaskConfig, now: number, running: ReadonlySet<string>) => {
      const entry = taskEntry(config, task)
      const due = isActive(config, task) ? cachedDue(entry, now) : undefined
      return {
        ...task,
        enabled: task.enabled !== false,
        nextRun: due === undefined ? null : new Date(due),
        isRunning: running.has(task.id),
      } satisfies ScheduledTask
    }

    const heartbeatView = (config: AppConfigDocument, now: number, running: ReadonlySet<string>): Heartbeat => {
      const heartbeat = heartbeatOf(config)
      let nextRun: Date | null = null
      if (heartbeatActive(config)) {
        const entry = heartbeatEntry(config)
        let due = dueOf(entry, cursorOf(entry, now), now)
        // The next beat that will actually run: skip occurrences outside the active hours.
        for (let n = 0; due !== undefined && n < 2000; n++) {
          if (heartbeat.activeHours === undefined || withinHours(heartbeat.activeHours, due, config.timezone)) break
          due = nextAfter(heartbeat.cron, config.timezone, due)
        }
        nextRun = due === undefined ? null : new Date(due)
      }
      return {
        enabled: heartbeat.enabled,
        cron: heartbeat.cron,
        tasks: heartbeat.tasks,
        destination: heartbeat.destination ?? null,
        activeHours: heartbeat.activeHours ?? null,
        nextRun,
        isRunning: running.has(heartbeatTaskId),
      }
    }

    const snapshot = Effect.gen(function* () {
      const config = yield* appConfig.get
      const now = yield* Clock.currentTimeMillis
      return { config, now, running: yield* runningIds(now) }
    })

    const invalid = (message: string) => new InvalidSchedule({ message })

    const checkDestination = (label: string | null | undefined) =>
      label === undefined || label === null
        ? Effect.void
        : Effect.flatMap(inbox.destinations, (known) =>
            known.includes(label)
              ? Effect.void
              : Effect.fail(invalid(`unknown destination ${JSON.stringify(label)} (available: ${known.join(", ")})`)),
          )

    const checkRunAt = (runAt: string | undefined, now: number) =>
      runAt !== undefined && Date.parse(runAt) <= now
        ? Effect.fail(invalid(`runAt must be in the future (it is ${runAt}, now is ${new Date(now).toISOString()})`))
        : Effect.void

    const fromEither = <A>(either: Either.Either<A, string>) => Either.mapLeft(either, invalid)

    const configProblems = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.catchIf(
        effect,
        (error): error is Extract<E, { readonly _tag: "ConfigValidationError" }> =>
          (error as { readonly _tag?: unknown })._tag === "ConfigValidationError",
        (error) =>
          Effect.fail(invalid((error as unknown as { readonly problems: ReadonlyArray<string> }).problems.join("; "))),
      )

    const list = Effect.map(snapshot, ({ config, now, running }) => ({
      enabled: config.schedule.enabled,
      tasks: config.schedule.tasks.map((task) => view(config, task, now, running)),
    }))

    const get = (id: string) =>
      Effect.flatMap(snapshot, ({ config, now, running }) => {
        const task = config.schedule.tasks.find((candidate) => candidate.id === id)
        return task === undefined
          ? Effect.fail(new TaskNotFound({ taskId: id }))
          : Effect.succeed(view(config, task, now, running))
      }).pipe(Effect.withSpan("Scheduler.get"))

    const create = Effect.fn("Scheduler.create")(function* (input: unknown) {
      const id = yield* ids.uuid
      const now = yield* Clock.currentTimeMillis
      const task = yield* fromEither(createTask(id, input))
      yield* checkRunAt(task.runAt, now)
      yield* checkDestination(task.destination)
      yield* configProblems(
        appConfig.modify((config) => Effect.succeed({ schedule: { tasks: [...config.schedule.tasks, task] } })),
      )
      // Counting starts now, even before the loop first sees the task (or with the loop off).
      const cursor = initialCursor(taskEntry(yield* appConfig.get, task), now)
      yield* ledger.ensureState(id, cursor)
      if (!states.has(id)) states.set(id, { runCount: 0, cursor })
      return yield* get(id).pipe(Effect.catchTag("TaskNotFound", Effect.die))
    })

    const update = Effect.fn("Scheduler.update")(function* (id: string, patch: unknown) {
      const now = yield* Clock.currentTimeMillis
      const before = yield* appConfig.get
      const after = yield* configProblems(
        appConfig.modify((config) =>
          Effect.gen(function* () {
            const current = config.schedule.tasks.find((task) => task.id === id)
            if (current === undefined) return yield* new TaskNotFound({ taskId: id })
            const next = yield* fromEither(patchTask(current, patch))
            if (next.runAt !== current.runAt) yield* checkRunAt(next.runAt, now)
            if (next.destination !== current.destination) yield* checkDestination(next.destination)
            return { schedule: { tasks: config.schedule.tasks.map((task) => (task.id === id ? next : task)) } }
          }),
        ),
      )
      // Now rather than when the loop next wakes, so the answer's nextRun is already right.
      const old = before.schedule.tasks.find((task) => task.id === id)
      const task = after.schedule.tasks.find((candidate) => candidate.id === id)
      const cursor = old && task ? movedCursor(before, old, after, task, now) : undefined
      if (cursor !== undefined) yield* setCursor(id, cursor)
      return yield* get(id)
    })

    const delete_ = Effect.fn("Scheduler.delete")(function* (id: string) {
      const config = yield* appConfig.get
      if (!config.schedule.tasks.some((task) => task.id === id)) return yield* new TaskNotFound({ taskId: id })
      yield* FiberMap.remove(fibers, id)
      yield* appConfig
        .modify((current) =>
          current.schedule.tasks.some((task) => task.id === id)
            ? Effect.succeed({ schedule: { tasks: current.schedule.tasks.filter((task) => task.id !== id) } })
            : Effect.fail(new TaskNotFound({ taskId: id })),
        )
        .pipe(Effect.catchTag("ConfigValidationError", Effect.die))
    })

    const heartbeat = Effect.map(snapshot, ({ config, now, running }) => heartbeatView(config, now, running))

    const updateHeartbeat = Effect.fn("Scheduler.updateHeartbeat")(function* (patch: unknown) {
      const items = (patch as { readonly tasks?: unknown } | null)?.tasks
      const missing = Array.isArray(items) ? items.filter((item) => item?.id === undefined).length : 0
      const fresh = yield* Effect.all(Array.from({ length: missing }, () => ids.uuid))
      const before = yield* appConfig.get
      const after = yield* configProblems(
        appConfig.modify((config) =>
          Effect.gen(function* () {
            const current = config.schedule.heartbeat ?? {}
            const next = yield* fromEither(patchHeartbeat(current, patch, () => fresh.shift()!))
            if (next.destination !== current.destination) yield* checkDestination(next.destination)
            // A merge patch: keys the new value lacks are deleted with null.
            const body: Record<string, unknown> = { ...next }
            for (const key of Object.keys(current)) if (!Object.hasOwn(next, key)) body[key] = null
            return { schedule: { heartbeat: body } }
          }),
        ),
      )
      if (
        heartbeatActive(after) &&
        (!heartbeatActive(before) || heartbeatOf(before).cron !== heartbeatOf(after).cron)
      ) {
        yield* setCursor(heartbeatTaskId, yield* Clock.currentTimeMillis)
      }
      return yield* heartbeat
    })

    return Scheduler.of({
      list,
      get,
      create,
      update,
      delete: delete_,
      heartbeat,
      updateHeartbeat,
    })
  })

/** The scheduler with its firing loop, in the layer's scope (closing it stops the loop and the runs). */
export const layer: Layer.Layer<
  Scheduler,
  StorageError,
  SqlClient.SqlClient | AppConfig | Chat | Threads | Inbox | Ids
> = Layer.scoped(Scheduler, make()).pipe(Layer.provide(SqlRunLedger.layer))

/** `layer` with other settings (no loop, shorter timeouts…). */
export const layerWith = (
  options: SchedulerOptions,
): Layer.Layer<Scheduler, StorageError, SqlClient.SqlClient | AppConfig | Chat | Threads | Inbox | Ids> =>
  Layer.scoped(Scheduler, make(options)).pipe(Layer.provide(SqlRunLedger.layer))

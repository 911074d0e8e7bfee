import { type Cause, Clock, Duration, Effect, FiberMap, Queue, type Scope, Stream } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import {
  armedAt,
  type Entry,
  heartbeatActive,
  heartbeatEntry,
  heartbeatOf,
  movedCursor,
  taskEntry,
} from "../DueTimes.js"
import type { TaskState } from "../RunLedger.js"
import { heartbeatTaskId } from "../ScheduleModel.js"
import type { Firing } from "./firing.js"
import type { Retirement } from "./retirement.js"
import type { RuntimeState } from "./runtimeState.js"

export interface Step {
  /** One pass: answers the next due time (Infinity: none; 0: the pass failed). */
  readonly step: Effect.Effect<number>
  /** Forks, in the scope, the application of config changes as they are made (for a scheduler without loop). */
  readonly follow: Effect.Effect<void, never, Scope.Scope>
}

/**
 * One pass of the scheduler: applies the config changes since the previous pass, then fires
 * every due time (each claimed in the ledger first, so it runs once across passes, processes and
 * replicas). `step` answers when the next due time is (Infinity: none; 0: the pass failed, it
 * was logged, try again later). The firing loop runs it forever; `ManualScheduler` on request.
 */
export const makeStep = (
  state: RuntimeState,
  firing: Firing,
  retirement: Retirement,
): Effect.Effect<Step, never, AppConfig> =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig

    /**
     * Applies what a config change means for the runtime state: a new or re-enabled schedule owes
     * nothing from before the change, a new runAt is due again, a removed task is forgotten, and a
     * disabled heartbeat stops at once. A re-armed schedule counts from the change: `now` when
     * this process applies it as it is made (`since` undefined), else from what the process that
     * made it recorded (`armedAt`), not from the pass that finds it.
     */
    const reconcile = (before: AppConfigDocument, after: AppConfigDocument, since: number | undefined, now: number) =>
      Effect.gen(function* () {
        const previous = new Map(before.schedule.tasks.map((task) => [task.id, task]))
        // The master flag switched on: a task this process meets now was off until now too.
        const masterOn = !before.schedule.enabled && after.schedule.enabled
        const moved: Array<readonly [string, number]> = []
        for (const task of after.schedule.tasks) {
          const old = previous.get(task.id)
          previous.delete(task.id)
          const cursor =
            old === undefined
              ? masterOn && task.enabled !== false && task.cron !== undefined
                ? now
                : undefined
              : movedCursor(before, old, after, task, now)
          if (cursor !== undefined) moved.push([task.id, cursor])
        }
        const hbBefore = heartbeatOf(before)
        const hbAfter = heartbeatOf(after)
        const heartbeatArmed =
          heartbeatActive(after) &&
          (!heartbeatActive(before) || hbBefore.cron !== hbAfter.cron || before.timezone !== after.timezone)
        // What the process that made the change recorded: one read for all.
        const late = since !== undefined && (moved.some(([, cursor]) => cursor !== 0) || heartbeatArmed)
        const recorded = late ? yield* state.ledger.states : new Map<string, TaskState>()
        const armed = (id: string) => (since === undefined ? now : armedAt(recorded.get(id)?.cursor, since, now))
        for (const [id, cursor] of moved) yield* state.setCursor(id, cursor === 0 ? 0 : armed(id))
        for (const id of previous.keys()) yield* state.forget(id)
        if (!heartbeatActive(after)) {
          yield* FiberMap.remove(state.fibers, heartbeatTaskId)
        } else if (heartbeatArmed) {
          yield* state.setCursor(heartbeatTaskId, armed(heartbeatTaskId))
        }
      })

    /** The entries that fire under `config`: its enabled tasks, and the heartbeat when on. */
    const entriesOf = (config: AppConfigDocument) => {
      const entries: Array<Entry> = config.schedule.tasks
        .filter((task) => task.enabled !== false)
        .map((task) => taskEntry(config, task))
      if (heartbeatOf(config).enabled) entries.push(heartbeatEntry(config))
      return entries
    }

    /** Fires what is due; answers when to wake next (Infinity: only a change wakes us). */
    const tick = (config: AppConfigDocument) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (!config.schedule.enabled) return Number.POSITIVE_INFINITY
        const entries = entriesOf(config)
        yield* state.trackNew(entries, now)
        let wake = Number.POSITIVE_INFINITY
        for (const entry of entries) {
          let due = state.cachedDue(entry, now)
          if (due !== undefined && due <= now) {
            yield* firing.fire(config, entry, due, now)
            due = state.cachedDue(entry, now)
          }
          if (due === undefined) {
            // Claimed before a restart, but never removed: finish the job.
            const task = config.schedule.tasks.find((candidate) => candidate.id === entry.id)
            if (task?.runAt !== undefined && !state.localRunning.has(task.id)) yield* retirement.retire(task, 0)
            continue
          }
          if (due > now) wake = Math.min(wake, due)
        }
        // A recurring task that reached maxRuns before a restart and was never removed.
        for (const task of config.schedule.tasks) {
          const runCount = state.states.get(task.id)?.runCount ?? 0
          if (task.maxRuns !== undefined && runCount >= task.maxRuns && !state.localRunning.has(task.id)) {
            yield* retirement.retire(task, runCount)
          }
        }
        return wake
      })

    /** A pass that failed: its cause is kept (a manual pass, `POST /api/schedule/run-due`, reports it) and logged. */
    const failed = (message: string, cause: Cause.Cause<unknown>) =>
      Effect.zipRight(
        Effect.sync(() => {
          state.failure.last = cause
        }),
        Effect.logError(message, cause),
      )

    let previous = yield* appConfig.get
    // When `previous` was applied: a change found after it was made after it.
    let previousAt = yield* Clock.currentTimeMillis
    const lock = yield* Effect.makeSemaphore(1)

    /** Applies the config changes since the previous call; false when that failed (it is retried). */
    const apply = (config: AppConfigDocument, now: number, asMade: boolean) =>
      Effect.gen(function* () {
        if (config !== previous) yield* reconcile(previous, config, asMade ? undefined : previousAt, now)
        // New tasks start counting when they are applied (or from what the ledger recorded).
        if (config.schedule.enabled) yield* state.trackNew(entriesOf(config), now)
        previous = config
        previousAt = now
        return true
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(failed("scheduler: applying a config change failed; retrying in a minute", cause), false),
        ),
      )

    const step = Effect.gen(function* () {
      // Wake-ups from before this read are answered by it; later ones wake the loop's sleep.
      yield* Queue.takeAll(state.wakeUpSignal)
      state.failure.last = undefined
      const config = yield* appConfig.get
      // Unapplied, the change is tried again (from the same `previous`) on the next pass.
      return (yield* apply(config, yield* Clock.currentTimeMillis, false))
        ? yield* tick(config).pipe(
            Effect.catchAllCause((cause) =>
              Effect.as(failed("scheduler: tick failed; retrying in a minute", cause), 0),
            ),
          )
        : 0
    }).pipe(lock.withPermits(1))

    /**
     * Without a firing loop, changes are applied as they are made (not at the next pass), so a
     * task added or re-armed through `PATCH /api/config` counts from then.
     */
    const follow = Effect.forkScoped(
      Stream.runForEach(Stream.drop(appConfig.changes, 1), (config) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => apply(config, now, true)).pipe(lock.withPermits(1)),
      ),
    ).pipe(Effect.asVoid)

    return { step, follow }
  })

/**
 * The firing loop: one fiber computes every due time, fires what is due and sleeps on Effect's
 * `Clock` until the next one, woken early by config changes and finished runs. A failed pass, or
 * a config change that could not be recorded, is logged and retried a minute later: the loop
 * itself never ends (a database hiccup must not silence every schedule until a restart).
 */
export const make = (state: RuntimeState, step: Effect.Effect<number>): Effect.Effect<never> =>
  Effect.gen(function* () {
    while (true) {
      const wake = yield* step
      const now = yield* Clock.currentTimeMillis
      const delay = wake === 0 ? 60_000 : wake - now
      if (delay === Number.POSITIVE_INFINITY) yield* Queue.take(state.wakeUpSignal)
      else yield* Effect.raceFirst(Effect.sleep(Duration.millis(Math.max(0, delay))), Queue.take(state.wakeUpSignal))
    }
  })

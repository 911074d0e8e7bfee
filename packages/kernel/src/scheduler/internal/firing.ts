import { Cause, Clock, Duration, Effect, FiberMap } from "effect"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import * as KernelMetrics from "../../metrics/KernelMetrics.js"
import type { StorageError } from "../../storage/StorageError.js"
import { withinHours } from "../../time/Cron.js"
import { type Entry, heartbeatOf, messageOf } from "../DueTimes.js"
import type { RunOutcome } from "../RunLedger.js"
import { heartbeatTaskId, InvalidSchedule } from "../ScheduleModel.js"
import { isFinished, type Retirement } from "./retirement.js"
import type { RuntimeState } from "./runtimeState.js"
import type { TaskRuns } from "./taskRuns.js"

/** Why the heartbeat has nothing to do at `now`, before any model call. */
const heartbeatSkip = (config: AppConfigDocument, now: number) => {
  const heartbeat = heartbeatOf(config)
  if (heartbeat.activeHours !== undefined && !withinHours(heartbeat.activeHours, now, config.timezone)) {
    return "outside active hours"
  }
  if (!heartbeat.tasks.some((item) => item.enabled)) return "no enabled checklist item"
  return undefined
}

export interface FiringOptions {
  /** The claimant id of this scheduler in the ledger. */
  readonly owner: string
  /** A run still going after this long is stopped and recorded as failed. */
  readonly runTimeout: Duration.Duration
}

/**
 * Firing a due time: it is claimed in the ledger first (so it runs at most once), recorded as
 * `skipped` when the task's previous run is still going (no queue), otherwise run in a fiber of
 * the task under the run timeout, its outcome logged and recorded, and a finished task retired.
 */
export interface Firing {
  /** Fires the entry's due time `dueAt` of the config document `config`, at `now`. */
  readonly fire: (
    config: AppConfigDocument,
    entry: Entry,
    dueAt: number,
    now: number,
  ) => Effect.Effect<void, StorageError>
}

export const make = (state: RuntimeState, runs: TaskRuns, retirement: Retirement, options: FiringOptions): Firing => {
  const { ledger } = state
  const { retire } = retirement
  const { runTimeout } = options

  const execute = (
    entry: Entry,
    dueAt: number,
    run: Effect.Effect<RunOutcome, StorageError>,
    after: Effect.Effect<void>,
  ) =>
    Effect.gen(function* () {
      const firedAt = yield* Clock.currentTimeMillis
      KernelMetrics.observeSchedulerLag(firedAt - dueAt)
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
            : Effect.succeed({ status: "failed", error: messageOf(cause) } satisfies RunOutcome),
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
          Effect.sync(() => state.localRunning.delete(entry.id)),
          state.wakeUp,
        ),
      ),
      Effect.annotateLogs({ taskId: entry.id, dueAt: new Date(dueAt).toISOString() }),
    )

  /** Claims `dueAt` for the entry and starts its run (or records it skipped). */
  const fire = (config: AppConfigDocument, entry: Entry, dueAt: number, now: number) =>
    Effect.gen(function* () {
      const isHeartbeat = entry.id === heartbeatTaskId
      const busy =
        state.localRunning.has(entry.id) || (yield* ledger.runningTaskIds(now, state.staleAfterMillis)).has(entry.id)
      const skip = busy ? "the previous run was still going" : isHeartbeat ? heartbeatSkip(config, now) : undefined
      const claim = yield* ledger.claim({
        taskId: entry.id,
        dueAt,
        status: skip === undefined ? "running" : "skipped",
        owner: options.owner,
        now,
      })
      state.recordClaim(entry.id, dueAt, claim.claimed ? claim.runCount : undefined)
      if (!claim.claimed) return
      const task = config.schedule.tasks.find((candidate) => candidate.id === entry.id)
      if (skip !== undefined) {
        yield* ledger.finish(entry.id, dueAt, { status: "skipped", error: skip }, now)
        if (isFinished(claim.runCount, task) && task.runAt !== undefined) yield* retire(task, claim.runCount)
        return
      }
      state.localRunning.add(entry.id)
      const effect = isHeartbeat
        ? execute(entry, dueAt, runs.beat(heartbeatOf(config)), Effect.void)
        : execute(
            entry,
            dueAt,
            runs.runTask(task!),
            isFinished(claim.runCount, task) ? retire(task, claim.runCount) : Effect.void,
          )
      yield* FiberMap.run(state.fibers, entry.id, effect)
      state.started.count++
    })

  return { fire }
}

import { Cause, Effect, type Scope } from "effect"
import type { StorageError } from "../../storage/StorageError.js"
import { makeParts, type Scheduler, type SchedulerOptions, type SchedulerRequirements } from "../Scheduler.js"

/** What one pass did: `ManualScheduler.runDue` answers the first two, `DueRunner.runDue` fails or counts. */
export interface ManualPass {
  /** The next due time after this pass, if any task or the heartbeat has one. */
  readonly nextDueAt: Date | undefined
  /** Why the pass failed, if it did (logged already); what it did not fire is still due next time. */
  readonly failure: Cause.Cause<unknown> | undefined
  /** Runs this pass started (due times claimed by others, or skipped, are not counted). */
  readonly fired: number
}

/**
 * The one "fire what is due, now" of the kernel, behind both `ManualScheduler` and `DueRunner`:
 * a scheduler without its firing loop whose pass is driven by the host. A pass applies config
 * changes, claims and fires each due time (the ledger decides races with other processes), waits
 * for the runs it started (so none outlives the call), and removes the one-time tasks that are
 * done. Passes of one scheduler run one at a time.
 */
export const make = (
  options: Omit<SchedulerOptions, "enabled">,
): Effect.Effect<
  { readonly service: Scheduler["Type"]; readonly runDue: Effect.Effect<ManualPass> },
  StorageError,
  SchedulerRequirements | Scope.Scope
> =>
  Effect.gen(function* () {
    const parts = yield* makeParts(options)
    yield* parts.follow
    const lock = yield* Effect.makeSemaphore(1)
    const runDue = Effect.gen(function* () {
      const before = parts.started()
      const wake = yield* parts.step
      yield* parts.runsDone
      yield* parts.retireFinished
      return {
        nextDueAt: wake === 0 || wake === Number.POSITIVE_INFINITY ? undefined : new Date(wake),
        failure: wake === 0 ? (parts.lastFailure() ?? Cause.die("the scheduler's pass failed")) : undefined,
        fired: parts.started() - before,
      }
    }).pipe(lock.withPermits(1))
    return { service: parts.service, runDue }
  })

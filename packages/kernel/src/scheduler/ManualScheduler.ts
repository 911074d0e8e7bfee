import { Context, Effect, Layer } from "effect"
import type { StorageError } from "../storage/StorageError.js"
import * as ManualPass from "./internal/manualPass.js"
import { Scheduler, type SchedulerOptions, type SchedulerRequirements } from "./Scheduler.js"

/** What one `runDue` did. */
export interface DueRun {
  /** How many due times this pass claimed and ran (those another process claimed are not counted), as the HTTP trigger's `fired`. */
  readonly fired: number
  /** The next due time after this pass, if any task or the heartbeat has one. */
  readonly nextDueAt: Date | undefined
  /** The pass failed (logged with its cause); what it did not fire is still due next time. */
  readonly failed: boolean
}

/**
 * A scheduler that never fires by itself, for hosts without a long-lived process (a serverless
 * function woken by a cron trigger) or with their own job queue: the host calls `runDue`.
 *
 * Contract: `runDue` fires every due time that has passed and was not fired yet (each is claimed
 * in the `RunLedger` first, so it fires once however many processes call it, and however often),
 * waits for those runs to finish (a serverless host must not freeze them half-way), removes the
 * one-time tasks that are done, and answers how many runs it fired and when the next due time is. Config changes between
 * calls are applied as the firing loop applies them. Calls of one process run one at a time.
 */
export class ManualScheduler extends Context.Tag("@aide/kernel/ManualScheduler")<
  ManualScheduler,
  {
    /** Fires what is due now and waits for those runs. Never fails: a failed pass is logged. */
    readonly runDue: Effect.Effect<DueRun>
  }
>() {}

/**
 * `Scheduler` (the same editing API as the default) and `ManualScheduler`, with no firing loop.
 * `enabled` in `options` is ignored: only `runDue` fires.
 *
 * @example
 * Kernel.layer({ dataDir, schedulerLayer: ManualScheduler.layer() })
 * // in the trigger: Effect.flatMap(ManualScheduler, (manual) => manual.runDue)
 */
export const layer = (
  options: Omit<SchedulerOptions, "enabled"> = {},
): Layer.Layer<Scheduler | ManualScheduler, StorageError, SchedulerRequirements> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const manual = yield* ManualPass.make(options)
      const runDue = Effect.map(
        manual.runDue,
        ({ fired, nextDueAt, failure }): DueRun => ({ fired, nextDueAt, failed: failure !== undefined }),
      ).pipe(Effect.withSpan("ManualScheduler.runDue"))
      return Context.make(Scheduler, manual.service).pipe(Context.add(ManualScheduler, ManualScheduler.of({ runDue })))
    }),
  )

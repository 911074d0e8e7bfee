import { Cause, Context, Effect, Layer, type Scope } from "effect"
import { StorageError } from "../storage/StorageError.js"
import * as ManualPass from "./internal/manualPass.js"
import type { SchedulerOptions, SchedulerRequirements } from "./Scheduler.js"

/** What one pass did: the due times it claimed and ran (due times others claimed are not counted). */
export interface DuePass {
  readonly fired: number
}

/**
 * "Run what is due now", for hosts without a process that lives between requests (serverless):
 * a platform cron calls it, and it returns once the runs it started have finished. The same pass
 * as `ManualScheduler.runDue` (one implementation), answering how many runs it fired instead of
 * the next due time, and failing when the pass failed. Each due time is claimed in the
 * `RunLedger` first, so concurrent calls (or a replica with a loop) fire it once. Use it with the
 * scheduler's firing loop off (`{ enabled: false }`); with `ManualScheduler.layer()` as the
 * kernel's scheduler, call its `runDue` instead.
 *
 * @example
 * const { fired } = yield* Effect.flatMap(DueRunner, (runner) => runner.runDue)
 */
export class DueRunner extends Context.Tag("@aide/kernel/DueRunner")<
  DueRunner,
  { readonly runDue: Effect.Effect<DuePass, StorageError> }
>() {}

/** A due-task runner of its own (its scheduler state lives in the scope); `enabled` is ignored. */
export const make = (
  options: SchedulerOptions = {},
): Effect.Effect<DueRunner["Type"], StorageError, SchedulerRequirements | Scope.Scope> =>
  Effect.map(ManualPass.make(options), (manual) =>
    DueRunner.of({
      runDue: Effect.flatMap(manual.runDue, ({ failure, fired }) =>
        // The cause kept: a host tells "the database is away" (a 503) from a fault of ours.
        failure === undefined
          ? Effect.succeed({ fired })
          : Effect.fail(new StorageError({ message: "running the due tasks failed", cause: Cause.squash(failure) })),
      ).pipe(Effect.withSpan("DueRunner.runDue")),
    }),
  )

/** The due-task runner over the scheduler's requirements (the kernel provides them all). */
export const layer = (options: SchedulerOptions = {}): Layer.Layer<DueRunner, StorageError, SchedulerRequirements> =>
  Layer.scoped(DueRunner, make(options))

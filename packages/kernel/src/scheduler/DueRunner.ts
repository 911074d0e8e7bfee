import { Clock, Context, Duration, Effect, Fiber, FiberMap, Layer, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { Ids } from "../ids/Ids.js"
import type { StorageError } from "../storage/StorageError.js"
import { type Entry, heartbeatEntry, heartbeatOf, taskEntry } from "./DueTimes.js"
import * as Firing from "./internal/firing.js"
import * as Retirement from "./internal/retirement.js"
import * as RuntimeState from "./internal/runtimeState.js"
import * as TaskRuns from "./internal/taskRuns.js"
import { defaults, type SchedulerOptions, type SchedulerRequirements } from "./Scheduler.js"

/** What one pass did: the due times it claimed and ran (due times others claimed are not counted). */
export interface DuePass {
  readonly fired: number
}

/**
 * "Run what is due now", for hosts without a process that lives between requests (serverless):
 * a platform cron calls it, and it returns once the runs it started have finished. Each due time
 * is claimed in the `RunLedger` first, as the firing loop does, so concurrent calls (or a replica
 * with a loop) fire it once. Use it with the scheduler's firing loop off (`{ enabled: false }`).
 *
 * @example
 * const { fired } = yield* Effect.flatMap(DueRunner, (runner) => runner.runDue)
 */
export class DueRunner extends Context.Tag("@aide/kernel/DueRunner")<
  DueRunner,
  { readonly runDue: Effect.Effect<DuePass, StorageError> }
>() {}

export const make = (options: SchedulerOptions = {}): Effect.Effect<DueRunner["Type"], never, SchedulerRequirements> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<SchedulerRequirements>()
    const runTimeout = Duration.decode(options.runTimeout ?? defaults.runTimeout)
    const owner = yield* Effect.flatMap(Ids, (ids) => ids.uuid)

    // Every pass reads the ledger afresh (another instance may have fired since), and nothing
    // of a pass (fibers, queues) outlives it: its scope closes when it returns.
    const pass = Effect.gen(function* () {
      const config = yield* Effect.flatMap(AppConfig, (appConfig) => appConfig.get)
      if (!config.schedule.enabled) return { fired: 0 }
      const state = yield* RuntimeState.make(Duration.toMillis(runTimeout) + 60_000)
      const runs = yield* TaskRuns.make({
        maxSteps: options.maxSteps ?? defaults.maxSteps,
        heartbeatMaxSteps: options.heartbeatMaxSteps ?? defaults.heartbeatMaxSteps,
        heartbeatHistory: options.heartbeatHistory ?? defaults.heartbeatHistory,
      })
      const retirement = yield* Retirement.make
      const firing = Firing.make(state, runs, retirement, { owner, runTimeout })
      const now = yield* Clock.currentTimeMillis
      const entries: Array<Entry> = config.schedule.tasks
        .filter((task) => task.enabled !== false)
        .map((task) => taskEntry(config, task))
      if (heartbeatOf(config).enabled) entries.push(heartbeatEntry(config))
      const started: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
      for (const entry of entries) {
        if (!state.states.has(entry.id)) yield* state.track(entry, now)
        const due = state.cachedDue(entry, now)
        if (due === undefined || due > now) continue
        yield* firing.fire(config, entry, due, now)
        // A claim won and run starts a fiber; a lost or skipped one does not.
        const fiber = yield* FiberMap.get(state.fibers, entry.id).pipe(Effect.option)
        if (Option.isSome(fiber)) started.push(fiber.value)
      }
      // Awaited here, so no run outlives the request that triggered it.
      yield* Fiber.awaitAll(started)
      yield* retirement.drain
      return { fired: started.length }
    })

    return DueRunner.of({ runDue: Effect.provide(Effect.scoped(pass), context) })
  })

/** The due-task runner over the scheduler's requirements (the kernel provides them all). */
export const layer = (options: SchedulerOptions = {}): Layer.Layer<DueRunner, never, SchedulerRequirements> =>
  Layer.effect(DueRunner, make(options))

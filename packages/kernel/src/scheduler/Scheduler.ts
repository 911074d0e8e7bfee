import { type Cause, Clock, Context, Duration, Effect, FiberMap, Layer, type Scope, Stream } from "effect"
import type { Chat } from "../chat/Chat.js"
import { AppConfig } from "../config/AppConfig.js"
import { Ids } from "../ids/Ids.js"
import type { Inbox } from "../inbox/Inbox.js"
import * as Leases from "../replicas/Leases.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Threads } from "../threads/Threads.js"
import * as Editor from "./internal/editor.js"
import * as Firing from "./internal/firing.js"
import * as FiringLoop from "./internal/firingLoop.js"
import * as Retirement from "./internal/retirement.js"
import * as RuntimeState from "./internal/runtimeState.js"
import * as TaskRuns from "./internal/taskRuns.js"
import { RunLedger } from "./RunLedger.js"
import type {
  Heartbeat,
  HeartbeatPatch,
  InvalidSchedule,
  ScheduledTask,
  ScheduleList,
  TaskInput,
  TaskNotFound,
  TaskPatch,
} from "./ScheduleModel.js"

/**
 * Scheduled tasks and the heartbeat (SPEC "Schedule"). Tasks and heartbeat settings live in the
 * config document (`schedule.tasks`, `schedule.heartbeat`), so PATCH /api/config and these
 * methods edit the same data; run counts, cursors and the run ledger live in the `RunLedger`.
 * Bodies are validated here (they may come straight from JSON): problems are `InvalidSchedule`
 * with a message for the owner.
 *
 * Contract for an implementation (`Kernel.layer({ schedulerLayer })`; `ManualScheduler` is one): the
 * tasks are the config document's (`schedule.tasks`), so edits here and PATCH /api/config agree;
 * a due time runs at most once across processes (claim it in the `RunLedger` before running);
 * results go to the `Inbox` when a task has a destination; closing the Layer's scope stops every
 * run. Validation errors are `InvalidSchedule`, unknown ids `TaskNotFound`, never a defect.
 *
 * @example
 * const scheduler = yield* Scheduler
 * const task = yield* scheduler.create({ name: "Digest", prompt: "Summarise my inbox", cron: "0 8 * * *" })
 */
export class Scheduler extends Context.Tag("@aide/kernel/Scheduler")<
  Scheduler,
  {
    /** The master flag and every task, with `nextRun` and `isRunning`. */
    readonly list: Effect.Effect<ScheduleList, StorageError>
    readonly get: (id: string) => Effect.Effect<ScheduledTask, TaskNotFound | StorageError>
    /** Adds a task (id generated); `runAt` must be in the future, `destination` one of the destinations. */
    readonly create: (input: TaskInput) => Effect.Effect<ScheduledTask, InvalidSchedule | StorageError>
    /** `null` clears an optional field; `cron` clears `runAt` (and `maxRuns`) and vice versa. */
    readonly update: (
      id: string,
      patch: TaskPatch,
    ) => Effect.Effect<ScheduledTask, TaskNotFound | InvalidSchedule | StorageError>
    /** Removes the task, stopping its run if one is in progress. */
    readonly delete: (id: string) => Effect.Effect<void, TaskNotFound | StorageError>
    readonly heartbeat: Effect.Effect<Heartbeat, StorageError>
    /** `null` clears `destination` and `activeHours`; disabling stops a beat in progress. */
    readonly updateHeartbeat: (patch: HeartbeatPatch) => Effect.Effect<Heartbeat, InvalidSchedule | StorageError>
  }
>() {}

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

/** What the scheduler layer needs: its ledger, the config document, chat to run prompts, the inbox to deliver. */
export type SchedulerRequirements = RunLedger | AppConfig | Chat | Threads | Inbox | Ids

/** A scheduler's parts: its API, and what the firing loop (or `ManualScheduler`) drives. */
export interface SchedulerParts {
  readonly service: Scheduler["Type"]
  /** One pass: fires what is due; answers the next due time (see `FiringLoop.makeStep`). */
  readonly step: Effect.Effect<number>
  /** Resolves once no run of this scheduler is in progress. */
  readonly runsDone: Effect.Effect<void>
  /** Removes the finished one-time tasks queued so far from the config. */
  readonly retireFinished: Effect.Effect<void>
  /** How many runs this scheduler has started so far. */
  readonly started: () => number
  /** Why the latest `step` failed (it answered 0), if it did. */
  readonly lastFailure: () => Cause.Cause<unknown> | undefined
  /** Without a firing loop: forks the application of config changes as they are made (see `FiringLoop.makeStep`). */
  readonly follow: Effect.Effect<void, never, Scope.Scope>
  /** Forks the firing loop (and its helpers) into the scope: the scheduler then fires by itself. */
  readonly start: Effect.Effect<void, never, AppConfig | Scope.Scope>
}

/**
 * The scheduler over the config document and the `RunLedger`. A due time is claimed in the
 * ledger before it runs, so it runs at most once across restarts and replicas; a task whose
 * previous run is still going has its due time recorded as `skipped` (no queue). Runs are fibers
 * keyed by task id in the layer's scope. Nothing fires until someone drives `step`.
 */
export const makeParts = (
  options: SchedulerOptions = {},
): Effect.Effect<SchedulerParts, StorageError, SchedulerRequirements | Scope.Scope> =>
  Effect.gen(function* () {
    const ledger = yield* RunLedger
    const runTimeout = Duration.decode(options.runTimeout ?? defaults.runTimeout)
    // A run of another process is taken for abandoned only once it outlived its own timeout.
    const staleAfterMillis = Duration.toMillis(runTimeout) + 60_000
    const owner = yield* Effect.flatMap(Ids, (ids) => ids.uuid)

    const start = yield* Clock.currentTimeMillis
    yield* ledger.failAbandoned(start, staleAfterMillis)
    const retention = Duration.decode(options.ledgerRetention ?? defaults.ledgerRetention)
    yield* ledger.pruneFinished(start, Duration.toMillis(retention))

    const state = yield* RuntimeState.make(staleAfterMillis)
    const runs = yield* TaskRuns.make({
      maxSteps: options.maxSteps ?? defaults.maxSteps,
      heartbeatMaxSteps: options.heartbeatMaxSteps ?? defaults.heartbeatMaxSteps,
      heartbeatHistory: options.heartbeatHistory ?? defaults.heartbeatHistory,
    })
    const retirement = yield* Retirement.make
    const firing = Firing.make(state, runs, retirement, { owner, runTimeout })
    const { step, follow } = yield* FiringLoop.makeStep(state, firing, retirement)
    return {
      service: Scheduler.of(yield* Editor.make(state)),
      step,
      runsDone: Effect.ignore(FiberMap.awaitEmpty(state.fibers)),
      retireFinished: retirement.flush,
      started: () => state.started.count,
      lastFailure: () => state.failure.last,
      follow,
      start: Effect.gen(function* () {
        const appConfig = yield* AppConfig
        yield* Effect.forkScoped(retirement.worker)
        yield* Effect.forkScoped(Stream.runForEach(Stream.drop(appConfig.changes, 1), () => state.wakeUp))
        // The heartbeat and every task fire from one replica; the ledger still claims each due time once.
        yield* Leases.forkGuarded("scheduler", FiringLoop.make(state, step))
      }),
    }
  })

/** The scheduler, firing by itself unless `options.enabled` is false. */
export const make = (
  options: SchedulerOptions = {},
): Effect.Effect<Scheduler["Type"], StorageError, SchedulerRequirements | Scope.Scope> =>
  Effect.gen(function* () {
    const parts = yield* makeParts(options)
    // Without the loop, changes still count from when they are made (a host may drive passes).
    yield* options.enabled !== false ? parts.start : parts.follow
    return parts.service
  })

/**
 * The scheduler with its firing loop, in the layer's scope (closing it stops the loop and the
 * runs). Options change the settings (no loop, shorter timeouts…).
 *
 * @example
 * Scheduler.layer({ runTimeout: "2 minutes" }).pipe(Layer.provide(SqlRunLedger.layer))
 */
export const layer = (options: SchedulerOptions = {}): Layer.Layer<Scheduler, StorageError, SchedulerRequirements> =>
  Layer.scoped(Scheduler, make(options))

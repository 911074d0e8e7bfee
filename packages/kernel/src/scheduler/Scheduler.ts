import { Context, type Effect } from "effect"
import type { StorageError } from "../storage/StorageError.js"
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
 * methods edit the same data; run counts, cursors and the run ledger live in the database.
 * Bodies are validated here (they may come straight from JSON): problems are `InvalidSchedule`
 * with a message for the owner.
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

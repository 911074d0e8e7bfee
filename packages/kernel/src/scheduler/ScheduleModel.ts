import { Schema } from "effect"

/** The thread all heartbeat beats share. */
export const heartbeatThreadId = "heartbeat"

/** The ledger's task id for the heartbeat (task ids are UUIDs, so it cannot collide). */
export const heartbeatTaskId = "heartbeat"

/** The dedicated chat thread of a scheduled task. */
export const taskThreadId = (taskId: string) => `task-${taskId}`

/**
 * What the model answers in a heartbeat when nothing needs the owner's attention: an answer that
 * is only this token (optionally with punctuation or whitespace around it) delivers nothing.
 */
export const heartbeatOkToken = "HEARTBEAT_OK"

/** SPEC "Scheduled task", as GET /api/schedule and /api/schedule/:id answer it. */
export const ScheduledTask = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  cron: Schema.optional(Schema.String),
  runAt: Schema.optional(Schema.String),
  prompt: Schema.String,
  enabled: Schema.Boolean,
  timezone: Schema.optional(Schema.String),
  maxRuns: Schema.optional(Schema.Number),
  destination: Schema.optional(Schema.String),
  /** Next due time; null when the task is disabled, the master flag is off, or nothing is due any more. */
  nextRun: Schema.NullOr(Schema.Date),
  isRunning: Schema.Boolean,
}).annotations({ identifier: "ScheduledTask" })
export type ScheduledTask = typeof ScheduledTask.Type

/** GET /api/schedule. */
export const ScheduleList = Schema.Struct({
  enabled: Schema.Boolean,
  tasks: Schema.Array(ScheduledTask),
}).annotations({ identifier: "ScheduleList" })
export type ScheduleList = typeof ScheduleList.Type

export const HeartbeatChecklistItem = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  enabled: Schema.Boolean,
}).annotations({ identifier: "HeartbeatChecklistItem" })

/** SPEC "Heartbeat", as GET /api/schedule/heartbeat answers it. */
export const Heartbeat = Schema.Struct({
  enabled: Schema.Boolean,
  cron: Schema.String,
  tasks: Schema.Array(HeartbeatChecklistItem),
  /** Null: results go to the web inbox. */
  destination: Schema.NullOr(Schema.String),
  activeHours: Schema.NullOr(Schema.Struct({ start: Schema.String, end: Schema.String })),
  nextRun: Schema.NullOr(Schema.Date),
  isRunning: Schema.Boolean,
}).annotations({ identifier: "Heartbeat" })
export type Heartbeat = typeof Heartbeat.Type

/** POST /api/schedule: a new task (`id` is generated). */
export interface TaskInput {
  readonly name: string
  readonly prompt: string
  readonly cron?: string | null
  readonly runAt?: string | null
  readonly enabled?: boolean | null
  readonly timezone?: string | null
  readonly maxRuns?: number | null
  readonly destination?: string | null
}

/** PATCH /api/schedule/:id: `null` clears an optional field; `cron` clears `runAt` and vice versa. */
export type TaskPatch = { readonly [K in keyof TaskInput]?: TaskInput[K] | null }

/** PATCH /api/schedule/heartbeat: `null` clears `destination` and `activeHours`. */
export interface HeartbeatPatch {
  readonly enabled?: boolean
  readonly cron?: string
  readonly tasks?: ReadonlyArray<{ readonly id?: string; readonly description: string; readonly enabled?: boolean }>
  readonly destination?: string | null
  readonly activeHours?: { readonly start: string; readonly end: string } | null
}

export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", { taskId: Schema.String }) {}

/** A task or heartbeat body that cannot be accepted; `message` says why, for the owner. */
export class InvalidSchedule extends Schema.TaggedError<InvalidSchedule>()("InvalidSchedule", {
  message: Schema.String,
}) {}

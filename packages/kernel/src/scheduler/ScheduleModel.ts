import { Schema } from "effect"
import { CronExpression, NonEmptyString, PositiveInt, Timestamp, TimeZone, Uuid } from "../config/ConfigValues.js"
import { isJsonObject, type JsonObject } from "../config/MergePatch.js"
import { ActiveHours } from "../config/ScheduleConfig.js"
import * as Problems from "../validation/Problems.js"

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

/** The fields of a task body the owner sets, in the order problems are reported. */
export const taskFields = ["name", "prompt", "cron", "runAt", "enabled", "timezone", "maxRuns", "destination"] as const

/** The fields of a heartbeat body the owner sets. */
export const heartbeatFields = ["enabled", "cron", "tasks", "destination", "activeHours"] as const

const optional = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })

/** Absent or `null`: not set (in a patch, `null` clears it). */
const clearable = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optionalWith(Schema.NullOr(schema), { exact: true }).annotations({ description })

/** What an answer carries and a client may send back unchanged: ignored. */
const readOnly = (description: string) =>
  Schema.optionalWith(Schema.Unknown, { exact: true }).annotations({
    description: `Read-only (${description}): ignored`,
  })

const required = (description: string) =>
  Schema.propertySignature(NonEmptyString).annotations({
    description,
    // Worded `name: is required`, as the scheduler always has.
    missingMessage: () => "is required",
  })

const taskDocs = {
  name: "What the task is called (the title of its thread)",
  prompt: "What the assistant is asked at each run",
  cron: "Recurring: 5 fields (minute hour day month weekday) or 6 (seconds first); exactly one of cron and runAt",
  runAt: "One time: ISO 8601 with its offset (2026-05-01T09:00:00Z), in the future; exactly one of cron and runAt",
  enabled: "Whether the task runs; default true",
  timezone: "IANA time zone the cron is read in; default the config timezone",
  maxRuns: "Recurring tasks only: how many runs before the task stops",
  destination:
    "Where results go: one of GET /api/schedule/destinations; without one, the result stays in the task's thread",
} as const

const taskBody = {
  cron: clearable(CronExpression, taskDocs.cron),
  runAt: clearable(Timestamp, taskDocs.runAt),
  enabled: clearable(Schema.Boolean, taskDocs.enabled),
  timezone: clearable(TimeZone, taskDocs.timezone),
  maxRuns: clearable(PositiveInt, taskDocs.maxRuns),
  destination: clearable(NonEmptyString, taskDocs.destination),
  id: readOnly("generated"),
  nextRun: readOnly("computed"),
  isRunning: readOnly("computed"),
}

/**
 * How the scheduler words a body it refuses, checked in this order: not an object, unknown
 * fields (`known` lists the writable ones), what `first` finds (cron and runAt, a `null` the
 * body cannot take; or it answers the problems to word), then every problem of the fields.
 */
const scheduleProblems = (
  root: string,
  known: ReadonlyArray<string>,
  fields: Schema.Struct.Fields,
  first: (input: JsonObject, issues: ReadonlyArray<Problems.Issue>) => string | ReadonlyArray<Problems.Issue>,
) =>
  Problems.worded((input, issues) => {
    if (!isJsonObject(input)) return "request body must be a JSON object"
    const unknown = Object.keys(input).filter((key) => !Object.hasOwn(fields, key))
    if (unknown.length > 0) {
      return `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${known.join(", ")})`
    }
    const checked = first(input, issues)
    return typeof checked === "string" ? checked : Problems.describeIssues(checked, root).join("; ")
  })

const bodyOptions = { errors: "all", onExcessProperty: "error" } as const

const isSet = (value: unknown) => value !== undefined && value !== null

/** Both `cron` and `runAt` set (not null): the problem of any task body that does so. */
export const bothScheduled = (body: { readonly cron?: unknown; readonly runAt?: unknown }) =>
  isSet(body.cron) && isSet(body.runAt)
    ? "set exactly one of cron (recurring) and runAt (one time), not both"
    : undefined

/** A new task needs exactly one of `cron` and `runAt`. */
export const unscheduled = (body: { readonly cron?: unknown; readonly runAt?: unknown }) =>
  bothScheduled(body) ??
  (isSet(body.cron) || isSet(body.runAt)
    ? undefined
    : "cron or runAt is required: set exactly one (cron for a recurring task, runAt for a one-time task)")

const taskInputFields = { name: required(taskDocs.name), prompt: required(taskDocs.prompt), ...taskBody }

/** POST /api/schedule: a new task (`id` is generated); `null` counts as absent. */
export const TaskInput = Schema.Struct(taskInputFields).annotations({
  identifier: "ScheduledTaskInput",
  description: "A new task: a name, a prompt and exactly one of cron (recurring) or runAt (one time)",
  parseOptions: bodyOptions,
  // Whether it is scheduled is worded first; a required field sent as null is missing.
  message: scheduleProblems(
    "task",
    taskFields,
    taskInputFields,
    (input, issues) =>
      unscheduled(input) ??
      issues.map((issue) =>
        issue.path.length === 1 && input[String(issue.path[0])] === null ? { ...issue, message: "is missing" } : issue,
      ),
  ),
})
export type TaskInput = typeof TaskInput.Type

const taskPatchFields = {
  name: optional(NonEmptyString, taskDocs.name),
  prompt: optional(NonEmptyString, taskDocs.prompt),
  ...taskBody,
}

/** PATCH /api/schedule/:id: `null` clears an optional field; `cron` clears `runAt` and vice versa. */
export const TaskPatch = Schema.Struct(taskPatchFields).annotations({
  identifier: "ScheduledTaskPatch",
  description:
    "Partial task: null clears an optional field; setting cron clears runAt (and vice versa, runAt also clears maxRuns)",
  parseOptions: bodyOptions,
  message: scheduleProblems("task", taskFields, taskPatchFields, (input, issues) => {
    const cleared = ["name", "prompt"].find((key) => input[key] === null)
    return bothScheduled(input) ?? (cleared === undefined ? issues : `${cleared} is required and cannot be cleared`)
  }),
})
export type TaskPatch = typeof TaskPatch.Type

/** A heartbeat checklist item as sent: a missing `id` is generated, `enabled` defaults to true. */
export const HeartbeatItemInput = Schema.Struct({
  id: optional(Uuid, "Kept when given (a UUID); generated when missing"),
  description: Schema.propertySignature(NonEmptyString).annotations({ description: "What to check at each beat" }),
  enabled: optional(Schema.Boolean, "Default true"),
}).annotations({
  // A title, not an identifier: the stored item is the component named HeartbeatItem.
  title: "HeartbeatItem",
  message: () => "must be an object with an id, a description and enabled",
})

const heartbeatPatchFields = {
  enabled: optional(Schema.Boolean, "Whether the heartbeat runs"),
  cron: optional(CronExpression, "When it beats: 5 fields or 6 (seconds first)"),
  tasks: optional(Schema.Array(HeartbeatItemInput), "The checklist, replaced as a whole"),
  destination: clearable(NonEmptyString, "Where results go (GET /api/schedule/destinations); null: the web inbox"),
  activeHours: clearable(ActiveHours, "When beats may run, in the config timezone; null: any time"),
  nextRun: readOnly("computed"),
  isRunning: readOnly("computed"),
}

/** PATCH /api/schedule/heartbeat: `null` clears `destination` and `activeHours`. */
export const HeartbeatPatch = Schema.Struct(heartbeatPatchFields).annotations({
  identifier: "HeartbeatPatch",
  description: "Partial heartbeat: null clears destination and activeHours",
  parseOptions: bodyOptions,
  message: scheduleProblems("heartbeat", heartbeatFields, heartbeatPatchFields, (input, issues) => {
    const cleared = ["enabled", "cron", "tasks"].find((key) => input[key] === null)
    return cleared === undefined ? issues : `${cleared} cannot be null`
  }),
})
export type HeartbeatPatch = typeof HeartbeatPatch.Type

export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", { taskId: Schema.String }) {}

/** A task or heartbeat body that cannot be accepted; `message` says why, for the owner. */
export class InvalidSchedule extends Schema.TaggedError<InvalidSchedule>()("InvalidSchedule", {
  message: Schema.String,
}) {}

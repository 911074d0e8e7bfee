import { Schema } from "effect"
import { CronExpression, NonEmptyString, PositiveInt, Timestamp, TimeZone, Uuid } from "./ConfigValues.js"
import { optional } from "./SchemaFields.js"

/** The `schedule` section of the config document: scheduled tasks and the heartbeat. */

/**
 * SPEC "Scheduled task" as stored in `schedule.tasks`: exactly one of `cron` (recurring) and
 * `runAt` (one time); `maxRuns` for recurring tasks only. `destination` is a label of GET
 * /api/schedule/destinations; it is checked against the registered channels when set through
 * /api/schedule (channels come and go with plugins, so the document cannot check it).
 */
export const ScheduledTaskConfig = Schema.Struct({
  id: Uuid,
  name: NonEmptyString,
  prompt: NonEmptyString,
  cron: optional(CronExpression),
  runAt: optional(Timestamp),
  enabled: optional(Schema.Boolean),
  timezone: optional(TimeZone),
  maxRuns: optional(PositiveInt),
  destination: optional(NonEmptyString),
})
  .annotations({ message: () => "must be an object with an id, a name, a prompt and a cron or a runAt" })
  .pipe(
    Schema.filter((task) => {
      if (task.cron !== undefined && task.runAt !== undefined) {
        return "has both cron and runAt: set exactly one (send null for the other)"
      }
      if (task.cron === undefined && task.runAt === undefined) return "needs a cron (recurring) or a runAt (one time)"
      if (task.maxRuns !== undefined && task.cron === undefined) return "maxRuns applies to recurring (cron) tasks only"
      return true
    }),
  )
  .annotations({ identifier: "ScheduledTaskConfig" })
export type ScheduledTaskConfig = typeof ScheduledTaskConfig.Type

/** A time of day, `HH:mm` from 00:00 to 23:59. */
export const ClockTime = Schema.String.pipe(
  Schema.pattern(/^([01]\d|2[0-3]):[0-5]\d$/, {
    message: (issue) => `${JSON.stringify(issue.actual)} is not a time of day (HH:mm, 00:00 to 23:59)`,
  }),
)

/** A heartbeat checklist item. */
export const HeartbeatItem = Schema.Struct({
  id: Uuid,
  description: NonEmptyString,
  enabled: Schema.Boolean,
}).annotations({
  identifier: "HeartbeatItem",
  message: () => "must be an object with an id, a description and enabled",
})

/** When the heartbeat may run, in the config `timezone`; `end` before `start` spans midnight. */
export const ActiveHours = Schema.Struct({ start: ClockTime, end: ClockTime }).annotations({
  identifier: "ActiveHours",
  message: () => 'must be an object { start: "HH:mm", end: "HH:mm" }',
})

/**
 * The heartbeat (SPEC "Heartbeat") as stored in `schedule.heartbeat`: every field optional,
 * the scheduler applies `heartbeatDefaults`. `activeHours` is in the config `timezone`.
 */
export const HeartbeatConfig = Schema.Struct({
  enabled: optional(Schema.Boolean),
  cron: optional(CronExpression),
  tasks: optional(Schema.Array(HeartbeatItem)),
  destination: optional(NonEmptyString),
  activeHours: optional(ActiveHours),
}).annotations({ identifier: "HeartbeatConfig", message: () => "must be an object" })
export type HeartbeatConfig = typeof HeartbeatConfig.Type

/** What an unset heartbeat resolves to: off, every 30 minutes, no checklist. */
export const heartbeatDefaults = { enabled: false, cron: "*/30 * * * *", tasks: [] } as const

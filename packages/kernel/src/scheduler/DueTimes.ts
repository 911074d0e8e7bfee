import { Cause } from "effect"
import type { AppConfigDocument } from "../config/ConfigModel.js"
import { type HeartbeatConfig, heartbeatDefaults, type ScheduledTaskConfig } from "../config/ScheduleConfig.js"
import { latestBetween, nextAfter } from "../time/Cron.js"
import { heartbeatTaskId } from "./ScheduleModel.js"

/**
 * Due times, as pure functions of the config document and a cursor (the latest due time claimed
 * for an entry): what the scheduler's loop and its API both compute.
 */

export type ResolvedHeartbeat = HeartbeatConfig & {
  readonly enabled: boolean
  readonly cron: string
  readonly tasks: NonNullable<HeartbeatConfig["tasks"]>
}

export const heartbeatOf = (config: AppConfigDocument): ResolvedHeartbeat => {
  const stored = config.schedule.heartbeat ?? {}
  return {
    ...stored,
    enabled: stored.enabled ?? heartbeatDefaults.enabled,
    cron: stored.cron ?? heartbeatDefaults.cron,
    tasks: stored.tasks ?? heartbeatDefaults.tasks,
  }
}

/** Something that fires on a schedule: a task or the heartbeat. */
export interface Entry {
  readonly id: string
  readonly cron: string | undefined
  readonly runAt: number | undefined
  readonly zone: string
}

export const taskEntry = (config: AppConfigDocument, task: ScheduledTaskConfig): Entry => ({
  id: task.id,
  cron: task.cron,
  runAt: task.runAt === undefined ? undefined : Date.parse(task.runAt),
  zone: task.timezone ?? config.timezone,
})

export const heartbeatEntry = (config: AppConfigDocument): Entry => ({
  id: heartbeatTaskId,
  cron: heartbeatOf(config).cron,
  runAt: undefined,
  zone: config.timezone,
})

/**
 * Where a task that no scheduler recorded yet starts counting from: now for a cron (its creation
 * time is unknown, so nothing before it is owed), 0 for a runAt. A task the `RunLedger` already
 * knows counts from the ledger's cursor instead (its creation, re-arming or last run).
 */
export const initialCursor = (entry: Entry, now: number) => (entry.runAt !== undefined ? 0 : now)

/**
 * The cursor of a schedule a pass finds re-armed (a new cron, re-enabled…) since it last applied
 * the config at `since`: the ledger's `recorded` cursor when it was written after `since` — the
 * editor that made the change recorded when (or a replica has claimed a due time since) — else
 * `now` (a change no scheduler recorded, e.g. a config edit made while none ran). Counting from
 * the pass's own time would skip a due time between the edit and the pass.
 */
export const armedAt = (recorded: number | undefined, since: number, now: number) =>
  recorded !== undefined && recorded > since && recorded <= now ? recorded : now

/**
 * The due time after `cursor`: a one-time task's `runAt` until it is claimed; a cron's next
 * occurrence, or — when that is already past (the process was down) — only the latest missed
 * occurrence, so a recurring task catches up at most once.
 */
export const dueOf = (entry: Entry, cursor: number, now: number): number | undefined => {
  if (entry.runAt !== undefined) return entry.runAt > cursor ? entry.runAt : undefined
  if (entry.cron === undefined) return undefined
  const next = nextAfter(entry.cron, entry.zone, cursor)
  if (next === undefined || next > now) return next
  return latestBetween(entry.cron, entry.zone, cursor, now) ?? next
}

export const isActive = (config: AppConfigDocument, task: ScheduledTaskConfig) =>
  config.schedule.enabled && task.enabled !== false

/**
 * Where a task's cursor moves when it is edited: a new runAt is due (again); a new or re-enabled
 * cron owes nothing from before. Undefined: it stays.
 */
export const movedCursor = (
  before: AppConfigDocument,
  old: ScheduledTaskConfig,
  after: AppConfigDocument,
  task: ScheduledTaskConfig,
  now: number,
) => {
  if (task.runAt !== undefined) return task.runAt !== old.runAt ? 0 : undefined
  const changed =
    task.cron !== old.cron ||
    (task.timezone ?? after.timezone) !== (old.timezone ?? before.timezone) ||
    (isActive(after, task) && !isActive(before, old))
  return changed ? now : undefined
}

export const heartbeatActive = (config: AppConfigDocument) => config.schedule.enabled && heartbeatOf(config).enabled

export const messageOf = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.squash(cause) as { readonly message?: unknown; readonly _tag?: unknown }
  return typeof failure?.message === "string" && failure.message !== ""
    ? failure.message
    : String(failure?._tag ?? "the run failed")
}

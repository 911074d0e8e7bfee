import type { AppConfigDocument } from "../../config/ConfigModel.js"
import type { ScheduledTaskConfig } from "../../config/ScheduleConfig.js"
import { nextAfter, withinHours } from "../../time/Cron.js"
import { dueOf, heartbeatActive, heartbeatEntry, heartbeatOf, isActive, taskEntry } from "../DueTimes.js"
import { type Heartbeat, heartbeatTaskId, type ScheduledTask } from "../ScheduleModel.js"
import type { RuntimeState } from "./runtimeState.js"

/** What the API answers at one instant: the config document, the time and the tasks running. */
export interface Snapshot {
  readonly config: AppConfigDocument
  readonly now: number
  readonly running: ReadonlySet<string>
}

/**
 * A stored task as the API shows it: with `nextRun` and `isRunning` (SPEC "Scheduled task").
 * Field by field rather than spreading the stored task: the config document's tasks do not share
 * one shape, and a spread of them took the engine's slow path (≈ 2.5 µs a task, most of what
 * `GET /api/schedule` cost per task with 200 of them).
 */
export const taskView = (
  state: RuntimeState,
  { config, now, running }: Snapshot,
  task: ScheduledTaskConfig,
): ScheduledTask => {
  const entry = taskEntry(config, task)
  const due = isActive(config, task) ? state.cachedDue(entry, now) : undefined
  const view: { -readonly [K in keyof ScheduledTask]: ScheduledTask[K] } = {
    id: task.id,
    name: task.name,
    prompt: task.prompt,
    enabled: task.enabled !== false,
    nextRun: due === undefined ? null : new Date(due),
    isRunning: running.has(task.id),
  }
  if (task.cron !== undefined) view.cron = task.cron
  if (task.runAt !== undefined) view.runAt = task.runAt
  if (task.timezone !== undefined) view.timezone = task.timezone
  if (task.maxRuns !== undefined) view.maxRuns = task.maxRuns
  if (task.destination !== undefined) view.destination = task.destination
  return view
}

/** The heartbeat settings with their defaults, `nextRun` and `isRunning` (SPEC "Heartbeat"). */
export const heartbeatView = (state: RuntimeState, { config, now, running }: Snapshot): Heartbeat => {
  const heartbeat = heartbeatOf(config)
  let nextRun: Date | null = null
  if (heartbeatActive(config)) {
    const entry = heartbeatEntry(config)
    let due = dueOf(entry, state.cursorOf(entry, now), now)
    // The next beat that will actually run: skip occurrences outside the active hours.
    for (let n = 0; due !== undefined && n < 2000; n++) {
      if (heartbeat.activeHours === undefined || withinHours(heartbeat.activeHours, due, config.timezone)) break
      due = nextAfter(heartbeat.cron, config.timezone, due)
    }
    nextRun = due === undefined ? null : new Date(due)
  }
  return {
    enabled: heartbeat.enabled,
    cron: heartbeat.cron,
    tasks: heartbeat.tasks,
    destination: heartbeat.destination ?? null,
    activeHours: heartbeat.activeHours ?? null,
    nextRun,
    isRunning: running.has(heartbeatTaskId),
  }
}

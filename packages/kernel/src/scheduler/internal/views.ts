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

/** A stored task as the API shows it: with `nextRun` and `isRunning` (SPEC "Scheduled task"). */
export const taskView = (state: RuntimeState, { config, now, running }: Snapshot, task: ScheduledTaskConfig) => {
  const entry = taskEntry(config, task)
  const due = isActive(config, task) ? state.cachedDue(entry, now) : undefined
  return {
    ...task,
    enabled: task.enabled !== false,
    nextRun: due === undefined ? null : new Date(due),
    isRunning: running.has(task.id),
  } satisfies ScheduledTask
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

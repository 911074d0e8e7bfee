import { Effect, Queue } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import type { ScheduledTaskConfig } from "../../config/ScheduleConfig.js"

/**
 * One-time tasks and tasks at `maxRuns` leave the config document once fired (unless edited
 * meanwhile). They leave together, in one patch per batch, from one fiber: a patch validates and
 * stores the whole document (~60 ms with 10,000 tasks), so one patch per fired task would eat the
 * process when many fire close together. A batch lost to a stop is finished by the next start's
 * first pass.
 */
export interface Retirement {
  /** Queues the task's removal; `runCount` is what it had reached when it finished. */
  readonly retire: (task: ScheduledTaskConfig, runCount: number) => Effect.Effect<void>
  /** Removes queued tasks batch after batch, forever: forked in the layer's scope. */
  readonly worker: Effect.Effect<never>
  /** Removes the tasks queued so far, now (a scheduler without the worker). */
  readonly flush: Effect.Effect<void>
  /** Retires what is waiting now, without the worker (a pass that ends with its request). */
  readonly drain: Effect.Effect<void>
}

/** True when a task with this run count has nothing left to run. */
export const isFinished = (runCount: number, task: ScheduledTaskConfig | undefined): task is ScheduledTaskConfig =>
  task !== undefined && (task.runAt !== undefined || (task.maxRuns !== undefined && runCount >= task.maxRuns))

export const make: Effect.Effect<Retirement, never, AppConfig> = Effect.gen(function* () {
  const appConfig = yield* AppConfig
  const retiring = new Map<string, { readonly task: ScheduledTaskConfig; readonly runCount: number }>()
  const signal = yield* Queue.sliding<void>(1)

  const retire = (task: ScheduledTaskConfig, runCount: number) =>
    Effect.zipRight(
      Effect.sync(() => retiring.set(task.id, { task, runCount })),
      Queue.offer(signal, undefined),
    ).pipe(Effect.asVoid)

  const retireBatch = Effect.suspend(() => {
    const batch = new Map(retiring)
    retiring.clear()
    if (batch.size === 0) return Effect.void
    return appConfig
      .modify((config) => {
        const tasks = config.schedule.tasks.filter((current) => {
          const finishedTask = batch.get(current.id)
          if (finishedTask === undefined) return true
          // Edited since it fired (a new runAt, a higher maxRuns): it stays.
          if (current.runAt !== undefined) return current.runAt !== finishedTask.task.runAt
          return current.maxRuns === undefined || finishedTask.runCount < current.maxRuns
        })
        return Effect.succeed(tasks.length === config.schedule.tasks.length ? {} : { schedule: { tasks } })
      })
      .pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logError("scheduler: removing finished tasks failed", cause)),
        Effect.annotateLogs({ taskIds: Array.from(batch.keys()).join(",") }),
      )
  })

  return {
    retire,
    worker: Effect.forever(Effect.zipRight(Queue.take(signal), retireBatch)),
    flush: Effect.zipRight(Queue.takeAll(signal), retireBatch),
    drain: retireBatch,
  }
})

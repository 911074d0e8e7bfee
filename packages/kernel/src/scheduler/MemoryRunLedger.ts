import { Effect, Layer } from "effect"
import { type ClaimRequest, RunLedger, type RunRecord, type RunStatus, type TaskState } from "./RunLedger.js"

interface Run extends RunRecord {
  readonly taskId: string
  readonly startedAt: number
}

/**
 * `RunLedger` in this process's memory: claims are decided without yielding (one claimant wins),
 * but the ledger ends with the process, so a restart may run a due time again.
 */
export const make = Effect.sync(() => {
  const states = new Map<string, TaskState>()
  // Keyed by task id and due time, as the SQL primary key.
  const ledger = new Map<string, Run>()
  const key = (taskId: string, dueAt: number) => `${dueAt}\u0000${taskId}`
  const isRunning = (status: RunStatus) => status === "running"

  return RunLedger.of({
    states: Effect.sync((): ReadonlyMap<string, TaskState> => new Map(states)),
    ensureState: (taskId, cursor) =>
      Effect.sync(() => {
        if (!states.has(taskId)) states.set(taskId, { runCount: 0, cursor })
      }),
    moveCursor: (taskId, cursor) =>
      Effect.sync(() => {
        states.set(taskId, { runCount: states.get(taskId)?.runCount ?? 0, cursor })
      }),
    claim: ({ taskId, dueAt, status, now }: ClaimRequest) =>
      Effect.sync(() => {
        if (ledger.has(key(taskId, dueAt))) return { claimed: false } as const
        ledger.set(key(taskId, dueAt), { taskId, dueAt, status, startedAt: now, error: null, inboxMessageId: null })
        const state = states.get(taskId)
        const runCount = (state?.runCount ?? 0) + (isRunning(status) ? 1 : 0)
        states.set(taskId, { runCount, cursor: Math.max(state?.cursor ?? dueAt, dueAt) })
        return { claimed: true, runCount } as const
      }),
    finish: (taskId, dueAt, outcome) =>
      Effect.sync(() => {
        const run = ledger.get(key(taskId, dueAt))
        if (run === undefined) return
        ledger.set(key(taskId, dueAt), {
          ...run,
          status: outcome.status,
          error: outcome.error ?? null,
          inboxMessageId: outcome.inboxMessageId ?? null,
        })
      }),
    runningTaskIds: (now, staleAfterMillis) =>
      Effect.sync(
        (): ReadonlySet<string> =>
          new Set(
            [...ledger.values()]
              .filter((run) => isRunning(run.status) && run.startedAt > now - staleAfterMillis)
              .map((run) => run.taskId),
          ),
      ),
    failAbandoned: (now, staleAfterMillis) =>
      Effect.sync(() => {
        for (const [id, run] of ledger) {
          if (isRunning(run.status) && run.startedAt <= now - staleAfterMillis) {
            ledger.set(id, { ...run, status: "failed", error: "abandoned (the process stopped)" })
          }
        }
      }),
    pruneFinished: (now, keepMillis) =>
      Effect.sync(() => {
        for (const [id, run] of ledger)
          if (!isRunning(run.status) && run.startedAt < now - keepMillis) ledger.delete(id)
      }),
    forgetTask: (taskId) => Effect.sync(() => void states.delete(taskId)),
    runs: (taskId) =>
      Effect.sync(() =>
        [...ledger.values()]
          .filter((run) => run.taskId === taskId)
          .sort((a, b) => b.dueAt - a.dueAt)
          .map(({ dueAt, status, error, inboxMessageId }) => ({ dueAt, status, error, inboxMessageId })),
      ),
  })
})

export const layer: Layer.Layer<RunLedger> = Layer.effect(RunLedger, make)

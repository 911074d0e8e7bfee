import { Clock, Effect, Layer, Option } from "effect"
import {
  type ApprovalCall,
  ChatRuns,
  RunNotFound,
  RunNotPending,
  type SuspendedRun,
  ToolCallDecided,
  ToolCallNotFound,
} from "./ChatRuns.js"

/**
 * `ChatRuns` in this process's memory. Each transition checks and writes without yielding, so
 * two concurrent decisions cannot both win. `atomically` rolls back to a snapshot taken before
 * its effect if it fails (also undoing writes other fibers made meanwhile: one process, rare).
 */
export const make = Effect.sync(() => {
  const runs = new Map<string, SuspendedRun>()

  const requireSuspended = (runId: string): Effect.Effect<SuspendedRun, RunNotFound | RunNotPending> =>
    Effect.gen(function* () {
      const run = runs.get(runId)
      if (run === undefined) return yield* new RunNotFound({ runId })
      if (run.status !== "suspended") return yield* new RunNotPending({ runId, status: run.status })
      return run
    })

  return ChatRuns.of({
    // Runs are replaced, never mutated: a copy of the map is a snapshot to roll back to.
    atomically: (effect) =>
      Effect.suspend(() => {
        const before = new Map(runs)
        return Effect.onError(effect, () =>
          Effect.sync(() => {
            runs.clear()
            for (const [runId, run] of before) runs.set(runId, run)
          }),
        )
      }),
    suspend: (run) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          runs.set(run.runId, {
            runId: run.runId,
            threadId: run.threadId,
            messageId: run.messageId,
            status: "suspended",
            createdAt: new Date(now),
            calls: run.calls.map((call): ApprovalCall => ({ ...call, approved: null })),
          })
        }),
      ),
    get: (runId) => Effect.sync(() => Option.fromNullable(runs.get(runId))),
    findApproval: (threadId, approvalId) =>
      Effect.sync(() => {
        const newestFirst = [...runs.values()]
          .filter((run) => run.threadId === threadId)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        for (const run of newestFirst) {
          const call = run.calls.find((candidate) => candidate.approvalId === approvalId)
          if (call !== undefined) return Option.some({ runId: run.runId, toolCallId: call.toolCallId })
        }
        return Option.none()
      }),
    decide: (runId, toolCallId, approved) =>
      Effect.gen(function* () {
        // Checked and written with no yield in between: atomic in this process.
        const run = yield* requireSuspended(runId)
        if (toolCallId === undefined) {
          const calls = run.calls.map((call) => (call.approved === null ? { ...call, approved } : call))
          runs.set(runId, { ...run, calls })
          return { ...run, calls }
        }
        const call = run.calls.find((candidate) => candidate.toolCallId === toolCallId)
        if (call === undefined) return yield* new ToolCallNotFound({ runId, toolCallId })
        // The same decision sent again (a client retrying after a lost answer) is not a conflict.
        if (call.approved !== null) {
          if (call.approved !== approved) return yield* new ToolCallDecided({ runId, toolCallId })
          return run
        }
        const calls = run.calls.map((candidate) =>
          candidate.toolCallId === toolCallId ? { ...candidate, approved } : candidate,
        )
        runs.set(runId, { ...run, calls })
        return { ...run, calls }
      }),
    claimResume: (runId) =>
      Effect.sync(() => {
        const run = runs.get(runId)
        if (run?.status !== "suspended" || run.calls.some((call) => call.approved === null)) return false
        runs.set(runId, { ...run, status: "resumed" })
        return true
      }),
    suspendedIn: (threadId) =>
      Effect.sync(() =>
        [...runs.values()]
          .filter((run) => run.threadId === threadId && run.status === "suspended")
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.runId < b.runId ? -1 : 1)),
      ),
    supersede: (runId) =>
      Effect.sync(() => {
        const run = runs.get(runId)
        if (run?.status !== "suspended") return
        const calls = run.calls.map((call) => (call.approved === null ? { ...call, approved: false } : call))
        runs.set(runId, { ...run, status: "superseded", calls })
      }),
  })
})

export const layer: Layer.Layer<ChatRuns> = Layer.effect(ChatRuns, make)

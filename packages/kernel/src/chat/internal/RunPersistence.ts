import type { UIMessage } from "ai"
import { Effect } from "effect"
import type { StorageError } from "../../storage/StorageError.js"
import { type StoredMessage, type ThreadNotFound, Threads } from "../../threads/Threads.js"
import { applyDecisions, denyUnfinished, pendingCalls } from "../Approvals.js"
import { ChatRuns, RunNotFound } from "../ChatRuns.js"
import { settle } from "../PartialAnswer.js"
import type * as RunBounds from "../RunBounds.js"

/**
 * What a run writes, each in one transaction where a client could otherwise see half of it: the
 * answer with its suspended run, the owner's decisions with the message showing them, and the
 * runs a new message leaves behind.
 */
export const make = Effect.gen(function* () {
  const threads = yield* Threads
  const runs = yield* ChatRuns

  /**
   * The answer and, when it paused on tool calls, its suspended run: one transaction, so a client
   * that saw `approval-requested` can always approve, even after a crash. Settled: no part stays
   * `streaming`; `interrupted` says why the run ended early. Returns the message as saved
   * (undefined when there was nothing to save): the run's after-turn work takes the thread from
   * it instead of reading the thread again.
   */
  const saveAnswer = (answer: {
    readonly threadId: string
    readonly runId: string
    readonly message: UIMessage | undefined
    readonly interrupted: RunBounds.Interruption | undefined
  }) =>
    Effect.suspend((): Effect.Effect<StoredMessage | undefined, StorageError | ThreadNotFound> => {
      const { threadId, message, interrupted } = answer
      if (message === undefined || message.parts.length === 0) return Effect.succeed(undefined)
      const stored: StoredMessage = settle(
        {
          id: message.id,
          role: "assistant",
          parts: message.parts,
          metadata: {
            ...(message.metadata as object | undefined),
            ...(interrupted === undefined ? {} : { interrupted }),
          },
        },
        { keepApprovals: true },
      )
      const calls = pendingCalls(stored)
      if (calls.length === 0) return Effect.as(threads.saveMessage(threadId, stored), stored)
      return runs
        .atomically(
          Effect.zipRight(
            threads.saveMessage(threadId, stored),
            runs.suspend({ runId: answer.runId, threadId, messageId: stored.id, calls }),
          ),
        )
        .pipe(Effect.as(stored))
    })

  /**
   * A new message moves the conversation on: calls still waiting for a decision are denied (the
   * model must see a result for every call it made), and their runs end.
   */
  const supersedePending = (threadId: string) =>
    Effect.gen(function* () {
      const suspended = yield* runs.suspendedIn(threadId)
      if (suspended.length === 0) return
      const messages = yield* threads.messages(threadId)
      for (const run of suspended) {
        const message = messages.find((candidate) => candidate.id === run.messageId)
        yield* runs.atomically(
          Effect.zipRight(
            message === undefined ? Effect.void : threads.saveMessage(threadId, denyUnfinished(message)),
            runs.supersede(run.runId),
          ),
        )
      }
    })

  /** The decision and the message showing it, written together: a reload shows what was decided. */
  const recordDecision = (decision: {
    readonly threadId: string
    readonly runId: string
    readonly toolCallId: string | undefined
    readonly approved: boolean
  }) =>
    runs
      .atomically(
        Effect.gen(function* () {
          const run = yield* runs.decide(decision.runId, decision.toolCallId, decision.approved)
          const message = (yield* threads.messages(decision.threadId)).find(
            (candidate) => candidate.id === run.messageId,
          )
          if (message !== undefined) yield* threads.saveMessage(decision.threadId, applyDecisions(message, run.calls))
          return run
        }),
      )
      .pipe(Effect.catchTag("ThreadNotFound", () => Effect.fail(new RunNotFound({ runId: decision.runId }))))

  return { saveAnswer, supersedePending, recordDecision } as const
})

export type RunPersistence = Effect.Effect.Success<typeof make>

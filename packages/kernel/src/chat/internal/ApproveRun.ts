import type { UIMessageChunk } from "ai"
import { Effect, Option, Stream } from "effect"
import { Threads } from "../../threads/Threads.js"
import * as ThreadWindows from "../../threads/ThreadWindow.js"
import { applyDecisions } from "../Approvals.js"
import type { ApproveInput, ChatRun } from "../Chat.js"
import { InvalidChatRequest } from "../ChatErrors.js"
import { ChatRuns, RunNotFound, RunNotPending, type SuspendedRun } from "../ChatRuns.js"
import type * as RunningRuns from "./RunningRuns.js"
import type * as RunPersistence from "./RunPersistence.js"
import type * as RunStarter from "./RunStarter.js"

/** A stream acknowledging a decision while other calls of the run still wait. */
const acknowledgement = (run: SuspendedRun): ChatRun => {
  const waiting = run.calls.filter((call) => call.approved === null).map((call) => call.toolCallId)
  const chunks: ReadonlyArray<UIMessageChunk> = [
    {
      type: "start",
      messageId: run.messageId,
      messageMetadata: { runId: run.runId, threadId: run.threadId, awaitingApproval: waiting },
    },
    { type: "finish" },
  ]
  const events = chunks.map((chunk, index) => ({ id: index + 1, chunk }))
  return {
    threadId: run.threadId,
    runId: run.runId,
    events: Stream.fromIterable(events),
    attach: (sink) => {
      sink.onEvents(events)
      sink.onEnd()
      return () => {}
    },
  }
}

/**
 * Deciding tool calls of a paused run: the decision is recorded, and once every call of the run
 * is decided, the run resumes as a new stream continuing the same assistant message, once.
 */
export const make = (services: {
  readonly runningRuns: RunningRuns.RunningRuns
  readonly starter: RunStarter.RunStarter
  readonly persistence: RunPersistence.RunPersistence
}) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const runs = yield* ChatRuns
    const { runningRuns, starter, persistence } = services

    /**
     * The reference client sends the approval id (`approval.id` of the tool part) as `runId`: an
     * approval id of this thread names its run and that one call. A run id is tried first.
     */
    const resolveApproval = (input: ApproveInput) =>
      Effect.gen(function* () {
        const found = yield* runs.get(input.runId)
        if (Option.isSome(found)) return { input, found }
        const byApproval = yield* runs.findApproval(input.threadId, input.runId)
        if (Option.isNone(byApproval)) return { input, found }
        const { runId, toolCallId } = byApproval.value
        if (input.toolCallId !== undefined && input.toolCallId !== toolCallId) {
          return yield* new InvalidChatRequest({ message: "toolCallId is not the call of this approval" })
        }
        return { input: { ...input, runId, toolCallId }, found: yield* runs.get(runId) }
      })

    const approve = Effect.fn("Chat.approve")(function* (request: ApproveInput) {
      if (typeof request.approved !== "boolean") {
        return yield* new InvalidChatRequest({ message: "approved must be true or false" })
      }
      const approved = request.approved
      const { input, found } = yield* resolveApproval(request)
      // A run of another thread is not found in this one: run ids do not reveal other threads.
      if (Option.isNone(found) || found.value.threadId !== input.threadId) {
        return yield* new RunNotFound({ runId: input.runId })
      }
      if (input.messageId !== undefined && input.messageId !== found.value.messageId) {
        return yield* new InvalidChatRequest({ message: "messageId is not the message of this run" })
      }
      const { threadId } = input
      const decided = yield* persistence.recordDecision({
        threadId,
        runId: input.runId,
        toolCallId: input.toolCallId,
        approved,
      })
      yield* Effect.logInfo("chat: tool call decided").pipe(
        Effect.annotateLogs({
          threadId,
          runId: decided.runId,
          toolCallId: input.toolCallId ?? "all",
          approved,
          waiting: decided.calls.filter((call) => call.approved === null).length,
        }),
      )
      if (decided.calls.some((call) => call.approved === null)) return acknowledgement(decided)

      const claimed = yield* runningRuns.claim(threadId)
      return yield* starter.start({
        threadId,
        claimed,
        decidedCalls: decided.calls,
        prepare: Effect.gen(function* () {
          // Exactly one resume per run, whatever the number of concurrent approvals.
          if (!(yield* runs.claimResume(decided.runId))) {
            return yield* new RunNotPending({ runId: decided.runId, status: "resumed" })
          }
          const messages = yield* threads.messages(threadId)
          // The ledger is the truth: on PostgreSQL two decisions on one run, committed at once,
          // may each have saved the message with only its own decision applied.
          return {
            history: ThreadWindows.complete(
              messages.map((message) =>
                message.id === decided.messageId ? applyDecisions(message, decided.calls) : message,
              ),
            ),
          }
        }).pipe(Effect.catchTag("ThreadNotFound", () => Effect.fail(new RunNotFound({ runId: decided.runId })))),
      })
    })

    return { approve } as const
  })

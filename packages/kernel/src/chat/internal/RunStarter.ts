import { Cause, Clock, Deferred, Effect, Exit, Fiber, FiberSet, Option, Stream } from "effect"
import { Ids } from "../../ids/Ids.js"
import { Memory } from "../../memory/Memory.js"
import { Recall } from "../../memory/recall/Recall.js"
import * as KernelMetrics from "../../metrics/KernelMetrics.js"
import type { StorageError } from "../../storage/StorageError.js"
import { type StoredMessage, Threads, type ThreadWindow } from "../../threads/Threads.js"
import * as ThreadWindows from "../../threads/ThreadWindow.js"
import { Tools } from "../../tools/Tools.js"
import * as AnswerRecorder from "../AnswerRecorder.js"
import type { ChatRun } from "../Chat.js"
import { ChatBusy, type ChatModelError, type UnsupportedAttachment } from "../ChatErrors.js"
import type { AssistantMetadata } from "../ChatModel.js"
import type { SuspendedRun } from "../ChatRuns.js"
import type * as RunBounds from "../RunBounds.js"
import { StreamHub, type StreamSink } from "../StreamHub.js"
import { guardApprovals } from "./ApprovalGuard.js"
import * as RunLoop from "./RunLoop.js"
import * as RunModel from "./RunModel.js"
import type { Claim } from "./RunningRuns.js"
import type * as RunPersistence from "./RunPersistence.js"
import type * as ThreadNaming from "./ThreadNaming.js"

export interface RunStarterOptions {
  readonly maxRetries: number
  readonly maxSteps: number
  readonly checkpointMillis: number
  readonly bounds: RunBounds.RunBounds
}

/** The history a run starts from (a long thread's newest messages), and what is left to write of it. */
export interface Prepared<E> {
  readonly history: ThreadWindow
  /**
   * A write the history already shows (a new thread's first message): it goes on while the model
   * is asked, and the run waits for it before anything of the answer goes out, so a client never
   * sees an answer to a message that is not stored.
   */
  readonly write?: Effect.Effect<void, E | StorageError> | undefined
  /**
   * Whether the thread had a title as the run began: a titled thread is not read again for its
   * title after the answer (one cleared meanwhile is named after its next turn). Unknown: read.
   */
  readonly titled?: boolean | undefined
}

/** What a run starts from: the thread (claimed), and the history `prepare` writes and returns. */
export interface RunStart<E> {
  readonly threadId: string
  readonly claimed: Claim
  /** Writes what the run starts from (the user's message, or the owner's decisions); the history. */
  readonly prepare: Effect.Effect<Prepared<E>, E | StorageError>
  /** The decided calls of the run it resumes: approved ones run. */
  readonly decidedCalls?: SuspendedRun["calls"]
  readonly maxSteps?: number | undefined
}

/**
 * Runs `write` beside the model call: it starts once the call's request is out (the next turn of
 * the event loop, when the provider's fetch has been sent), or at once when the returned join is
 * run first — a model that produces without ever yielding the loop (an in-process one) never
 * waits for a turn that would not come. The join completes with the write (its failure included).
 */
const alongside = <E>(write: Effect.Effect<void, E>) =>
  Effect.gen(function* () {
    let claimed = false
    const claim = () => {
      if (claimed) return false
      claimed = true
      return true
    }
    const turn = Effect.async<void>((resume) => {
      const timer = setImmediate(() => resume(Effect.void))
      return Effect.sync(() => clearImmediate(timer))
    })
    const background = yield* Effect.fork(
      Effect.zipRight(
        turn,
        Effect.suspend(() => (claim() ? write : Effect.void)),
      ),
    )
    return Effect.suspend(() =>
      claim() ? Effect.zipRight(Fiber.interrupt(background), write) : Fiber.join(background),
    )
  })

/** A run whose stream is gone already (never: it is opened just before): nothing to follow. */
const noFollower = (sink: StreamSink) => {
  sink.onEnd()
  return () => {}
}

/** The tag (and, for a model failure, the message) of what failed a run: for its log line. */
const failureOf = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.squash(cause) as { readonly _tag?: unknown; readonly message?: unknown }
  if (failure?._tag === "ChatModelError") return `ChatModelError: ${String(failure.message)}`
  return typeof failure?._tag === "string" ? failure._tag : Cause.isInterruptedOnly(cause) ? "interrupted" : "defect"
}

/**
 * Starting runs. A run is a fiber of the service (`fibers`), not of the request that starts it:
 * the request only waits for the first content (or a failure), so a client that leaves early
 * stops nothing.
 */
export const make = (
  options: RunStarterOptions,
  services: {
    readonly fibers: FiberSet.FiberSet
    readonly persistence: RunPersistence.RunPersistence
    readonly naming: ThreadNaming.ThreadNaming
  },
) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const hub = yield* StreamHub
    const ids = yield* Ids
    const tools = yield* Tools
    const memory = yield* Memory
    const recall = yield* Recall
    const runModel = yield* RunModel.make({ maxRetries: options.maxRetries, bounds: options.bounds })
    const { fibers, persistence, naming } = services

    /** Runs the model over the history and returns once the first content (or a failure) came back. */
    const start = <E>(spec: RunStart<E>) =>
      Effect.gen(function* () {
        const { threadId, claimed } = spec
        const ready = yield* Deferred.make<
          ChatRun,
          E | ChatBusy | ChatModelError | UnsupportedAttachment | StorageError
        >()
        const run = Effect.gen(function* () {
          // The model first: one the host has not configured stores nothing (the client sends again).
          const resolved = yield* runModel.resolve
          const { history, write, titled } = yield* spec.prepare
          const written = write === undefined ? Effect.void : yield* alongside(write)
          const startedAt = yield* Clock.currentTimeMillis
          const runId = yield* ids.uuid
          const assistantId = yield* ids.uuid
          const metadata: AssistantMetadata = { runId, threadId }
          const approvedCalls = (spec.decidedCalls ?? []).filter((call) => call.approved === true)
          const toolset = guardApprovals(
            yield* tools.forRun({ threadId, runId, approvedCalls }),
            new Set(approvedCalls.map((call) => call.toolCallId)),
          )
          const opened = yield* Effect.exit(
            runModel.open({
              threadId,
              resolved,
              history,
              tools: toolset,
              controller: claimed.controller,
              startedAt: new Date(startedAt),
              assistantId,
              metadata,
              maxSteps: spec.maxSteps ?? options.maxSteps,
            }),
          )
          // The history stored before anything else: a model that failed still leaves the message
          // (sending it again answers it), and a failed write ends the call it went beside.
          yield* written.pipe(
            Effect.tapErrorCause(() =>
              Exit.isSuccess(opened) ? Effect.zipRight(opened.value.abandon, opened.value.done) : Effect.void,
            ),
          )
          const model = yield* opened
          // `open` returns with the model's first content (its head).
          KernelMetrics.observeFirstDelta((yield* Clock.currentTimeMillis) - startedAt)

          let saved: StoredMessage | undefined
          const writer = yield* hub.open(threadId).pipe(Effect.mapError(() => new ChatBusy({ threadId })))
          const last = history.messages.at(-1)
          const answer = AnswerRecorder.make({
            publishAll: writer.publishAll,
            save: (message) => threads.saveMessage(threadId, message),
            continued: last?.role === "assistant" ? last : undefined,
            metadata,
            bounds: options.bounds,
            checkpointMillis: options.checkpointMillis,
            startedAt,
          })
          // A head over the answer limit (a burst of chunks with the first content) cuts the run.
          const headCut = yield* answer.relayAll(model.head).pipe(
            Effect.as(false),
            Effect.catchTag("RunCut", () => Effect.succeed(true)),
          )
          const following = yield* hub.follow(threadId)
          yield* Deferred.succeed(
            ready,
            Option.match(following, {
              onNone: () => ({ threadId, runId, events: Stream.empty, attach: noFollower }),
              onSome: ({ events, attach }) => ({ threadId, runId, events, attach }),
            }),
          )
          // The request's fiber (woken above) takes the head to the socket first: this one would
          // otherwise log and start the next read before it.
          yield* Effect.yieldNow()
          yield* RunLoop.run({
            model,
            headCut,
            answer,
            writer,
            bounds: options.bounds,
            startedAt,
            commit: (message, interrupted) =>
              Effect.map(persistence.saveAnswer({ threadId, runId, message, interrupted }), (stored) => {
                saved = stored
              }),
            // Memory counts the turn and recall embeds it in their own fibers: neither delays `finish`.
            // Both titling and memory take the thread as this run saved it: no read of the whole
            // thread after the answer (nothing else writes to a thread while its run holds it).
            afterCommit: Effect.suspend(() => {
              const messages = ThreadWindows.withAnswer(history, saved)
              return Effect.all(
                [
                  titled === true ? Effect.void : naming.nameThread(threadId, messages),
                  memory.afterTurn(threadId, messages),
                  recall.afterTurn(threadId),
                ],
                { discard: true },
              )
            }),
            release: claimed.release,
          }).pipe(Effect.annotateLogs({ threadId, runId }))
        })

        yield* FiberSet.run(
          fibers,
          run.pipe(
            Effect.onError((cause) =>
              Effect.zipRight(
                Effect.sync(() => claimed.controller.abort()),
                Effect.zipRight(claimed.release, Deferred.failCause(ready, cause)),
              ),
            ),
            // The request answers 4xx/5xx; the log says which run and why (the error's tag and,
            // for a model failure, the provider's message), never the conversation.
            Effect.tapErrorCause((cause) =>
              Effect.logWarning("chat run failed before streaming").pipe(
                Effect.zipLeft(
                  Effect.sync(() => {
                    KernelMetrics.countChatRun("failed_to_start")
                    if (
                      Cause.failureOption(cause).pipe(
                        Option.exists((error) => (error as { readonly _tag?: unknown })._tag === "ChatModelError"),
                      )
                    ) {
                      KernelMetrics.countModelError()
                    }
                  }),
                ),
                Effect.annotateLogs({ threadId, error: failureOf(cause) }),
              ),
            ),
          ),
        )
        return yield* Deferred.await(ready)
      })

    return { start } as const
  })

export type RunStarter = Effect.Effect.Success<ReturnType<typeof make>>

import type { UIMessage, UIMessageChunk } from "ai"
import { Cause, Clock, Context, Deferred, Effect, FiberSet, Layer, Option, Runtime, Stream } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { Ids } from "../ids/Ids.js"
import { ModelRegistry } from "../models/ModelRegistry.js"
import type { StorageError } from "../storage/StorageError.js"
import { type StoredMessage, Threads } from "../threads/Threads.js"
import { Tools } from "../tools/Tools.js"
import * as AnswerRecorder from "./AnswerRecorder.js"
import { applyDecisions, denyUnfinished, pendingCalls } from "./Approvals.js"
import { ChatBusy, ChatModelError, InvalidChatRequest } from "./ChatErrors.js"
import { errorMessage, fallbackTitle, loadAi, toUIParts } from "./ChatMessages.js"
import type { AssistantMetadata, ChatPart } from "./ChatModel.js"
import {
  ChatRuns,
  RunNotFound,
  RunNotPending,
  type SuspendedRun,
  type ToolCallDecided,
  type ToolCallNotFound,
} from "./ChatRuns.js"
import { hasEarlierAttachments, isRequestRejection, usableHistory, withoutEarlierAttachments } from "./History.js"
import * as ModelStream from "./ModelStream.js"
import { settle } from "./PartialAnswer.js"
import * as RunBounds from "./RunBounds.js"
import { type StreamEvent, StreamHub } from "./StreamHub.js"
import { systemPrompt } from "./SystemPrompt.js"
import { TitleGenerator } from "./TitleGenerator.js"

export { fallbackTitle } from "./ChatMessages.js"

/**
 * A started chat run: its thread, its id, and its events (UI message chunks with their ids)
 * from the first on, until the run ends. A transport encodes them (the server: SSE).
 */
export interface ChatRun {
  readonly threadId: string
  readonly runId: string
  readonly events: Stream.Stream<StreamEvent>
}

/** A message to the assistant. */
export interface ChatInput {
  /** The thread to continue; a new one (server-generated UUID) when omitted. */
  readonly threadId?: string | undefined
  readonly parts: ReadonlyArray<ChatPart>
  /** Cap on model steps (each step may call tools) for this run; default `ChatOptions.maxSteps`. */
  readonly maxSteps?: number | undefined
}

/** The owner's decision on a paused run (`POST /api/chat/approve`). */
export interface ApproveInput {
  readonly runId: string
  readonly threadId: string
  /** One call of the run; every undecided call when omitted. */
  readonly toolCallId?: string | undefined
  /** Required: true runs the call, false denies it (the model is told). */
  readonly approved: boolean | undefined
  /** The assistant message holding the call; checked when given. */
  readonly messageId?: string | undefined
}

export type ApproveError =
  | ChatBusy
  | ChatModelError
  | InvalidChatRequest
  | RunNotFound
  | RunNotPending
  | ToolCallNotFound
  | ToolCallDecided
  | StorageError

/**
 * Talking to the assistant. A run is owned by the service, not by the request that started it:
 * a client that goes away leaves generation and persistence intact, and can reconnect through
 * the `StreamHub`. Only `stop` ends a run early.
 */
export class Chat extends Context.Tag("@aide/kernel/Chat")<
  Chat,
  {
    /**
     * Saves the user's message, starts the model, and returns once the first content (or a
     * failure) has come back: a model that fails before producing anything fails here.
     */
    readonly send: (
      input: ChatInput,
    ) => Effect.Effect<ChatRun, ChatBusy | ChatModelError | InvalidChatRequest | StorageError>
    /**
     * Records the owner's decision on a run paused in `approval-requested`. Once every call of
     * the run is decided, the run resumes (approved calls execute, denied ones are reported to
     * the model) as a new stream continuing the same assistant message; until then the returned
     * stream only acknowledges the decision. A run resumes once: later decisions fail.
     */
    readonly approve: (input: ApproveInput) => Effect.Effect<ChatRun, ApproveError>
    /** Aborts the thread's running generation, keeping what was produced. False when none runs. */
    readonly stop: (threadId: string) => Effect.Effect<boolean>
  }
>() {}

/** Resumes on the next turn of the event loop, once Node has flushed what responses wrote. */
const nextMacrotask = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

export interface ChatOptions extends RunBounds.RunBoundsOptions {
  /** Retries of a failed provider call (429, 5xx…) before the run fails; default 2. */
  readonly maxRetries?: number
  /** Model steps per run (each step may call tools); default 10. */
  readonly maxSteps?: number
  /** How often the answer is saved while it streams, so a crash keeps it; default 2 s. */
  readonly checkpointInterval?: number
}

const defaultMaxSteps = 10
const defaultCheckpointMillis = 2000

/** The tag (and, for a model failure, the message) of what failed a run: for its log line. */
const failureOf = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.squash(cause) as { readonly _tag?: unknown; readonly message?: unknown }
  if (failure?._tag === "ChatModelError") return `ChatModelError: ${String(failure.message)}`
  return typeof failure?._tag === "string" ? failure._tag : Cause.isInterruptedOnly(cause) ? "interrupted" : "defect"
}

export const make = (options: ChatOptions = {}) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const hub = yield* StreamHub
    const ids = yield* Ids
    const appConfig = yield* AppConfig
    const models = yield* ModelRegistry
    const titles = yield* TitleGenerator
    const tools = yield* Tools
    const runs = yield* ChatRuns
    // Runs belong to the service's scope, so they outlive the requests that start them.
    const fibers = yield* FiberSet.make()
    // Provider errors surface in the SDK's callbacks; log them through our logger, not stderr.
    const runtime = yield* Effect.runtime<never>()
    const logProviderError = (error: unknown): void => {
      Runtime.runFork(runtime)(Effect.logWarning("model provider error", errorMessage(error)))
    }
    const running = new Map<string, AbortController>()
    const bounds = RunBounds.resolve(options)
    const checkpointMillis = options.checkpointInterval ?? defaultCheckpointMillis

    const modelFor = Effect.gen(function* () {
      const config = yield* appConfig.get
      const resolved = yield* models
        .languageModel(config.models.operator)
        .pipe(Effect.mapError((error) => new ChatModelError({ message: error.message })))
      return { config, ...resolved }
    })

    /** Claims the thread for one run, synchronously with the check: a second claim sees it busy. */
    const claim = (threadId: string) =>
      Effect.gen(function* () {
        if (running.has(threadId) || (yield* hub.isActive(threadId))) return yield* new ChatBusy({ threadId })
        const controller = new AbortController()
        running.set(threadId, controller)
        const release = Effect.sync(() => {
          if (running.get(threadId) === controller) running.delete(threadId)
        })
        return { controller, release }
      })

    /**
     * Runs the model over the thread's history in a fiber of the service and returns once the
     * first content (or a failure) has come back. `prepare` writes what the run starts from (the
     * user's message, or the owner's decisions) and returns the history.
     */
    const startRun = <E>(spec: {
      readonly threadId: string
      readonly claimed: { readonly controller: AbortController; readonly release: Effect.Effect<void> }
      readonly prepare: Effect.Effect<ReadonlyArray<StoredMessage>, E | StorageError>
      readonly approvedCalls?: SuspendedRun["calls"]
      readonly maxSteps?: number | undefined
    }) =>
      Effect.gen(function* () {
        const { threadId, claimed } = spec
        const { controller, release } = claimed
        const ready = yield* Deferred.make<ChatRun, E | ChatBusy | ChatModelError | StorageError>()
        // The whole run is a fiber of the service: the request only waits for it to start
        // streaming, so a client that leaves early stops nothing.
        const run = Effect.gen(function* () {
          const history = yield* spec.prepare
          const { config, model, settings } = yield* modelFor
          const startedAt = yield* Clock.currentTimeMillis
          const now = new Date(startedAt)
          const runId = yield* ids.uuid
          const assistantId = yield* ids.uuid
          const metadata: AssistantMetadata = { runId, threadId }
          const usable = usableHistory(history)
          for (const part of usable.unusable) {
            yield* Effect.logWarning("chat: a stored file part was left out of the model request").pipe(
              Effect.annotateLogs({
                threadId,
                messageId: part.messageId,
                partIndex: part.index,
                problem: part.problem,
              }),
            )
          }
          const approvedCalls = (spec.approvedCalls ?? []).filter((call) => call.approved === true)
          const toolset = yield* tools.forRun({ threadId, runId, approvedCalls })

          const { convertToModelMessages } = yield* Effect.promise(loadAi)
          let providerError: unknown
          const begin = (messages: ReadonlyArray<StoredMessage>) =>
            Effect.gen(function* () {
              providerError = undefined
              const modelMessages = yield* Effect.tryPromise({
                try: () => convertToModelMessages(messages as unknown as Array<UIMessage>, { tools: toolset }),
                catch: (error) => {
                  providerError = error
                  return new ChatModelError({ message: errorMessage(error) })
                },
              })
              return yield* ModelStream.open({
                model,
                settings,
                system: systemPrompt(config, now),
                messages: modelMessages,
                tools: toolset,
                maxSteps: spec.maxSteps ?? options.maxSteps ?? defaultMaxSteps,
                maxRetries: options.maxRetries ?? 2,
                controller,
                originalMessages: history,
                assistantId,
                metadata,
                bounds,
                onProviderError: (error) => {
                  providerError = error
                  logProviderError(error)
                },
              })
            })
          // A request the provider refused because of an attachment of an earlier message (stored
          // before validation, or of a type this model cannot take) is retried without earlier
          // attachments: one bad file fails its own message, never every later one of the thread.
          const stream = yield* begin(usable.messages).pipe(
            Effect.catchTag("ChatModelError", (error) =>
              isRequestRejection(providerError) && hasEarlierAttachments(usable.messages)
                ? Effect.zipRight(
                    Effect.logWarning(
                      "chat: the model rejected the request; retrying without earlier attachments",
                    ).pipe(Effect.annotateLogs({ threadId, error: error.message })),
                    begin(withoutEarlierAttachments(usable.messages)),
                  )
                : Effect.fail(error),
            ),
          )
          const { head, ended, read, abandon, outcome } = stream

          const writer = yield* hub.open(threadId).pipe(Effect.mapError(() => new ChatBusy({ threadId })))
          const last = history.at(-1)
          const answer = AnswerRecorder.make({
            publish: writer.publish,
            save: (message) => threads.saveMessage(threadId, message),
            continued: last?.role === "assistant" ? last : undefined,
            metadata,
            bounds,
            checkpointMillis,
            startedAt,
          })
          for (const chunk of head) yield* answer.relay(chunk).pipe(Effect.catchTag("RunCut", () => Effect.void))
          let interrupted: RunBounds.Interruption | undefined

          // The message and, when it paused on tool calls, its suspended run: one transaction, so
          // a client that saw `approval-requested` can always approve, even after a crash.
          const persist = Effect.suspend(() => {
            const message = outcome.responseMessage
            if (message === undefined || message.parts.length === 0) return Effect.void
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
            if (calls.length === 0) return threads.saveMessage(threadId, stored)
            return runs.atomically(
              Effect.zipRight(
                threads.saveMessage(threadId, stored),
                runs.suspend({ runId, threadId, messageId: stored.id, calls }),
              ),
            )
          })

          const nameThread = Effect.gen(function* () {
            const thread = yield* threads.get(threadId)
            if (thread.title !== null) return
            const messages = yield* threads.messages(threadId)
            yield* threads.setTitle(threadId, fallbackTitle(messages))
            // The model's title replaces the fallback when it comes; the run does not wait for it, and
            // it starts on the next turn of the event loop: its setup (several ms of CPU) would
            // otherwise hold back Node's flush of `finish` and `[DONE]`.
            yield* FiberSet.run(
              fibers,
              Effect.zipRight(nextMacrotask, titles.generate(messages)).pipe(
                Effect.flatMap(
                  Option.match({ onNone: () => Effect.void, onSome: (title) => threads.setTitle(threadId, title) }),
                ),
                Effect.catchAllCause((cause) => Effect.logWarning("titling the thread failed", cause)),
              ),
            )
          })

          // The producer: relays chunks, and commits the message before `finish` goes out, so a
          // client that saw `finish` never loses the message, whatever happens to the process next.
          const produce = Effect.gen(function* () {
            yield* Effect.logInfo("chat run started")
            let finish: UIMessageChunk | undefined
            while (!ended) {
              const next = yield* Effect.either(
                Effect.flatMap(read, (next) =>
                  next.done || next.value.type === "finish"
                    ? Effect.succeed(next)
                    : Effect.as(Effect.zipRight(answer.relay(next.value), answer.checkpoint), next),
                ),
              )
              if (next._tag === "Left") {
                const failure = next.left
                if (failure._tag === "RunCut") yield* abandon
                interrupted = failure._tag === "RunCut" ? failure.reason : "model-error"
                const errorText =
                  failure._tag === "RunCut" ? RunBounds.cutText(failure.reason, bounds) : failure.message
                yield* writer.publish({ type: "error", errorText })
                outcome.responseMessage = yield* answer.rebuild
                break
              }
              if (next.right.done) break
              if (next.right.value.type === "finish") finish = next.right.value
            }
            yield* stream.done
            if (interrupted === undefined && outcome.aborted) interrupted = "stopped"
            yield* persist
            yield* nameThread
            if (finish !== undefined) yield* writer.publish(finish)
            yield* Effect.logInfo("chat run finished").pipe(
              Effect.annotateLogs({
                durationMs: (yield* Clock.currentTimeMillis) - startedAt,
                finishReason: interrupted ?? outcome.finishReason ?? "unknown",
                inputTokens: outcome.usage.inputTokens ?? null,
                outputTokens: outcome.usage.outputTokens ?? null,
                answerBytes: answer.bytes(),
              }),
            )
          }).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logError("chat run failed", cause).pipe(
                Effect.zipRight(writer.publish({ type: "error", errorText: "the response could not be completed" })),
              ),
            ),
            Effect.ensuring(Effect.zipRight(writer.finish, release)),
            Effect.annotateLogs({ threadId, runId }),
          )
          const events = yield* hub.subscribe(threadId)
          yield* Deferred.succeed(ready, { threadId, runId, events: Option.getOrElse(events, () => Stream.empty) })
          yield* produce
        })

        yield* FiberSet.run(
          fibers,
          run.pipe(
            Effect.onError((cause) =>
              Effect.zipRight(
                Effect.sync(() => controller.abort()),
                Effect.zipRight(release, Deferred.failCause(ready, cause)),
              ),
            ),
            // The request answers 4xx/5xx; the log says which run and why (the error's tag and,
            // for a model failure, the provider's message), never the conversation.
            Effect.tapErrorCause((cause) =>
              Effect.logWarning("chat run failed before streaming").pipe(
                Effect.annotateLogs({ threadId, error: failureOf(cause) }),
              ),
            ),
          ),
        )
        return yield* Deferred.await(ready)
      })

    /**
     * A new message moves the conversation on: calls still waiting for a decision are denied
     * (the model must see a result for every call it made), and their runs end.
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

    const send = Effect.fn("Chat.send")(function* (input: ChatInput) {
      if (!input.parts.some((part) => part.type === "text" && part.text.trim() !== "")) {
        return yield* new InvalidChatRequest({ message: "parts must contain at least one non-empty text part" })
      }
      const threadId = input.threadId ?? (yield* ids.uuid)
      const claimed = yield* claim(threadId)
      return yield* startRun({
        threadId,
        claimed,
        maxSteps: input.maxSteps,
        prepare: Effect.gen(function* () {
          const { created } = yield* threads.ensure(threadId)
          if (!created) yield* supersedePending(threadId)
          yield* threads.saveMessage(threadId, { id: yield* ids.uuid, role: "user", parts: toUIParts(input.parts) })
          return yield* threads.messages(threadId)
          // The thread was ensured a moment ago; losing it now (a concurrent delete) is a defect.
        }).pipe(Effect.catchTag("ThreadNotFound", (error) => Effect.die(error))),
      })
    })

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
      return {
        threadId: run.threadId,
        runId: run.runId,
        events: Stream.fromIterable(chunks.map((chunk, index) => ({ id: index + 1, chunk }))),
      }
    }

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
      // The decision and the message showing it are written together: a reload shows what was decided.
      const decided = yield* runs
        .atomically(
          Effect.gen(function* () {
            const run = yield* runs.decide(input.runId, input.toolCallId, approved)
            const message = (yield* threads.messages(threadId)).find((candidate) => candidate.id === run.messageId)
            if (message !== undefined) yield* threads.saveMessage(threadId, applyDecisions(message, run.calls))
            return run
          }),
        )
        .pipe(Effect.catchTag("ThreadNotFound", () => Effect.fail(new RunNotFound({ runId: input.runId }))))
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

      const claimed = yield* claim(threadId)
      return yield* startRun({
        threadId,
        claimed,
        approvedCalls: decided.calls,
        prepare: Effect.gen(function* () {
          // Exactly one resume per run, whatever the number of concurrent approvals.
          if (!(yield* runs.claimResume(decided.runId))) {
            return yield* new RunNotPending({ runId: decided.runId, status: "resumed" })
          }
          const messages = yield* threads.messages(threadId)
          // The ledger is the truth: on PostgreSQL two decisions on one run, committed at once,
          // may each have saved the message with only its own decision applied.
          return messages.map((message) =>
            message.id === decided.messageId ? applyDecisions(message, decided.calls) : message,
          )
        }).pipe(Effect.catchTag("ThreadNotFound", () => Effect.fail(new RunNotFound({ runId: decided.runId })))),
      })
    })

    const stop = (threadId: string) =>
      Effect.sync(() => {
        const controller = running.get(threadId)
        if (controller === undefined) return false
        controller.abort()
        return true
      })

    return Chat.of({ send, approve, stop })
  })

/** Chat over `Threads`, `ChatRuns`, `Tools`, `StreamHub`, `AppConfig`, `ModelRegistry`, `TitleGenerator` and `Ids`. */
export const layer = (options: ChatOptions = {}) => Layer.scoped(Chat, make(options))

import { Context, Effect, FiberSet, Layer, type Stream } from "effect"
import { Ids } from "../ids/Ids.js"
import type { StorageError } from "../storage/StorageError.js"
import { type StoredMessage, Threads } from "../threads/Threads.js"
import * as ThreadWindows from "../threads/ThreadWindow.js"
import { unacceptedAttachment, unacceptedMessage } from "./Attachments.js"
import type { ChatBusy, ChatModelError } from "./ChatErrors.js"
import { InvalidChatRequest, UnsupportedAttachment } from "./ChatErrors.js"
import { toUIParts } from "./ChatMessages.js"
import type { ChatPart } from "./ChatModel.js"
import type { RunNotFound, RunNotPending, ToolCallDecided, ToolCallNotFound } from "./ChatRuns.js"
import * as ApproveRun from "./internal/ApproveRun.js"
import * as RunningRuns from "./internal/RunningRuns.js"
import * as RunPersistence from "./internal/RunPersistence.js"
import * as RunStarter from "./internal/RunStarter.js"
import * as ThreadNaming from "./internal/ThreadNaming.js"
import * as RunBounds from "./RunBounds.js"
import { type StreamEvent, StreamHub, type StreamSink } from "./StreamHub.js"

/**
 * A started chat run: its thread, its id, and its events (UI message chunks with their ids)
 * from the first on, until the run ends. A transport encodes them (the server: SSE).
 */
export interface ChatRun {
  readonly threadId: string
  readonly runId: string
  readonly events: Stream.Stream<StreamEvent>
  /**
   * The same events into `sink` instead (no fiber or Stream per event: the server writes them
   * straight to the socket); returns the function that detaches it. Use one or the other.
   */
  readonly attach: (sink: StreamSink) => () => void
}

/** A message to the assistant. */
export interface ChatInput {
  /** The thread to continue; a new one (server-generated UUID) when omitted. */
  readonly threadId?: string | undefined
  /**
   * `threadId` is one the caller just generated (a transport that names the thread before it
   * answers): the thread is created without being looked up first. Only how it is stored.
   */
  readonly newThread?: boolean | undefined
  readonly parts: ReadonlyArray<ChatPart>
  /** The user message's id (clients such as `useChat` name their messages); server-generated when omitted. */
  readonly messageId?: string | undefined
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
  | UnsupportedAttachment
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
     * Saves the user's message (a new thread's while the model is asked), starts the model, and
     * returns once the first content (or a failure) has come back and the message is stored: a
     * model that fails before producing anything fails here, its message kept.
     */
    readonly send: (
      input: ChatInput,
    ) => Effect.Effect<ChatRun, ChatBusy | ChatModelError | UnsupportedAttachment | InvalidChatRequest | StorageError>
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

export interface ChatOptions extends RunBounds.RunBoundsOptions {
  /** Retries of a failed provider call (429, 5xx…) before the run fails; default 2. */
  readonly maxRetries?: number
  /** Model steps per run (each step may call tools); default 10. */
  readonly maxSteps?: number
  /** How often the answer is saved while it streams, so a crash keeps it; default 2 s. */
  readonly checkpointInterval?: number
}

const defaultMaxSteps = 10
const defaultMaxRetries = 2
const defaultCheckpointMillis = 2000

/**
 * The service, wired from its parts (chat/internal/): `RunningRuns` (one run per thread, `stop`),
 * `RunStarter` (a run as a fiber of the service, awaited up to its first content), `RunModel`
 * (the model call), `RunLoop` (relaying, `finish` held until the commit), `RunPersistence` (what
 * a run writes), `ThreadNaming` (titles) and `ApproveRun` (the owner's decisions).
 */
export const make = (options: ChatOptions = {}) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const ids = yield* Ids
    // Runs belong to the service's scope, so they outlive the requests that start them.
    const fibers = yield* FiberSet.make()
    const runningRuns = yield* RunningRuns.make(yield* StreamHub)
    const persistence = yield* RunPersistence.make
    const starter = yield* RunStarter.make(
      {
        maxRetries: options.maxRetries ?? defaultMaxRetries,
        maxSteps: options.maxSteps ?? defaultMaxSteps,
        checkpointMillis: options.checkpointInterval ?? defaultCheckpointMillis,
        bounds: RunBounds.resolve(options),
      },
      { fibers, persistence, naming: yield* ThreadNaming.make(fibers) },
    )
    const { approve } = yield* ApproveRun.make({ runningRuns, starter, persistence })

    const send = Effect.fn("Chat.send")(function* (input: ChatInput) {
      if (!input.parts.some((part) => part.type === "text" && part.text.trim() !== "")) {
        return yield* new InvalidChatRequest({ message: "parts must contain at least one non-empty text part" })
      }
      // Refused before anything is stored: no model takes it, and a stored one would only be noted away.
      const unaccepted = unacceptedAttachment(input.parts)
      if (unaccepted !== undefined) return yield* new UnsupportedAttachment({ message: unacceptedMessage(unaccepted) })
      const threadId = input.threadId ?? (yield* ids.uuid)
      // A client id is a new message's: reusing one would overwrite history (ids are per thread).
      // Except the thread's last message when it is that user message, unanswered (its answer
      // failed): sending it again answers it again, in the same thread, without a copy.
      let retry = false
      if (input.messageId !== undefined && input.threadId !== undefined) {
        // The last message and whether the id is taken: two bounded reads, never the whole thread.
        const { messageId } = input
        const seen = yield* Effect.all([threads.tail(threadId, 1), threads.holding(threadId, [messageId])]).pipe(
          Effect.catchTag("ThreadNotFound", () => Effect.succeed(undefined)),
        )
        const last = seen?.[0].messages.at(-1)
        retry = last?.id === messageId && last.role === "user"
        if (!retry && seen?.[1].has(messageId) === true) {
          return yield* new InvalidChatRequest({ message: "messageId is already in the thread" })
        }
      }
      const claimed = yield* runningRuns.claim(threadId)
      return yield* starter.start({
        threadId,
        claimed,
        maxSteps: input.maxSteps,
        prepare: Effect.gen(function* () {
          // A thread the client names usually exists: read first (one statement, no write that
          // changes nothing); its title as the run begins spares titling a read after the answer.
          const existing =
            input.threadId === undefined || input.newThread === true
              ? undefined
              : yield* threads.get(threadId).pipe(Effect.catchTag("ThreadNotFound", () => Effect.succeed(undefined)))
          const { created, thread } =
            existing === undefined ? yield* threads.ensure(threadId) : { created: false, thread: existing }
          const titled = thread.title !== null
          if (!created) yield* persistence.supersedePending(threadId)
          // A long thread's run reads its newest messages; memory asks for more when it must.
          if (retry) return { history: yield* ThreadWindows.read(threads, threadId), titled }
          const message: StoredMessage = {
            id: input.messageId ?? (yield* ids.uuid),
            role: "user",
            parts: toUIParts(input.parts),
          }
          // The thread was ensured a moment ago; losing it now (a concurrent delete) is a defect.
          const save = threads.saveMessage(threadId, message).pipe(Effect.catchTag("ThreadNotFound", Effect.die))
          // A thread this send created holds only this message (its run holds the thread, and
          // the parts are plain JSON, stored as given): no read back, and the message is saved
          // while the model is asked rather than before.
          if (created) return { history: ThreadWindows.complete([message]), write: save, titled }
          yield* save
          return { history: yield* ThreadWindows.read(threads, threadId), titled }
        }).pipe(Effect.catchTag("ThreadNotFound", (error) => Effect.die(error))),
      })
    })

    return Chat.of({ send, approve, stop: runningRuns.stop })
  })

/** Chat over `Threads`, `ChatRuns`, `Tools`, `AgentStep`, `StreamHub`, `AppConfig`, `ModelRegistry`, `TitleGenerator` and `Ids`. */
export const layer = (options: ChatOptions = {}) => Layer.scoped(Chat, make(options))

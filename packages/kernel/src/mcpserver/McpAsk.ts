import { Effect, Option, Schema, Stream } from "effect"
import { Chat, type ChatRun } from "../chat/Chat.js"
import { Ids } from "../ids/Ids.js"
import { type CallContext, failWith, type PendingCall, ToolFailure, tool, withMessage } from "./McpToolSpec.js"

/** Failures of starting or resuming a run, in the words of `POST /api/chat` and `/api/chat/approve`. */
const sendErrors = {
  ChatBusy: failWith("A response is already streaming in this thread"),
  InvalidChatRequest: withMessage,
  ChatModelError: withMessage,
  UnsupportedAttachment: withMessage,
  StorageError: (error: unknown) => Effect.die(error),
} as const

const approveErrors = {
  ...sendErrors,
  RunNotFound: failWith("Run not found"),
  ToolCallNotFound: failWith("Tool call not found in run"),
  RunNotPending: failWith("Run is not waiting for approval"),
  ToolCallDecided: failWith("Tool call already decided"),
} as const

interface Followed {
  readonly text: string
  readonly pending: ReadonlyArray<PendingCall>
  readonly error: string | undefined
}

type Chunk = { readonly type?: unknown; readonly [key: string]: unknown }

/**
 * Reads a run's chunks to its end: the answer's text (each delta reported as progress), the
 * calls left waiting for approval, the run's error if it failed.
 */
const follow = (run: ChatRun, context: CallContext, before: string) =>
  Stream.runFoldEffect(
    run.events,
    {
      text: before,
      pending: [] as Array<PendingCall>,
      inputs: new Map<string, PendingCall>(),
      error: undefined as string | undefined,
    },
    (state, event) => {
      const chunk = (typeof event.chunk === "object" && event.chunk !== null ? event.chunk : {}) as Chunk
      if (chunk.type === "text-delta" && typeof chunk.delta === "string" && chunk.delta !== "") {
        const text = state.text + chunk.delta
        return Effect.as(context.progress(text.length, chunk.delta), { ...state, text })
      }
      if (chunk.type === "tool-input-available" && typeof chunk.toolCallId === "string") {
        state.inputs.set(chunk.toolCallId, {
          toolCallId: chunk.toolCallId,
          toolName: String(chunk.toolName),
          input: chunk.input,
        })
      }
      if (chunk.type === "tool-approval-request" && typeof chunk.toolCallId === "string") {
        const call = state.inputs.get(chunk.toolCallId) ?? { toolCallId: chunk.toolCallId, toolName: "", input: null }
        state.pending.push(call)
      }
      if (chunk.type === "error" && typeof chunk.errorText === "string")
        return Effect.succeed({ ...state, error: chunk.errorText })
      return Effect.succeed(state)
    },
  ).pipe(Effect.map(({ text, pending, error }): Followed => ({ text, pending, error })))

/**
 * Follows `run` and, while it pauses on calls and the client can be asked, asks for each
 * decision and resumes the run: the last decision's stream continues the answer.
 */
const answer = (first: ChatRun, context: CallContext) =>
  Effect.gen(function* () {
    const chat = yield* Chat
    let run = first
    let followed = yield* follow(run, context, "")
    while (followed.error === undefined && followed.pending.length > 0 && Option.isSome(context.decide)) {
      const decisions: Array<readonly [PendingCall, boolean]> = []
      for (const call of followed.pending) {
        const decision = yield* context.decide.value(call)
        if (decision === undefined) break
        decisions.push([call, decision])
      }
      if (decisions.length < followed.pending.length) break
      let resumed = run
      for (const [call, approved] of decisions) {
        resumed = yield* chat
          .approve({ runId: run.runId, threadId: run.threadId, toolCallId: call.toolCallId, approved })
          .pipe(Effect.catchTags(approveErrors))
        // Until the last decision, the stream only acknowledges it.
        if (call !== decisions.at(-1)?.[0]) yield* Stream.runDrain(resumed.events)
      }
      run = resumed
      followed = yield* follow(run, context, followed.text)
    }
    if (followed.error !== undefined) return yield* new ToolFailure({ message: followed.error })
    const waiting = followed.pending.length > 0
    return {
      threadId: run.threadId,
      runId: run.runId,
      status: waiting ? ("waiting_for_approval" as const) : ("done" as const),
      text: followed.text,
      ...(waiting ? { pendingApprovals: followed.pending } : {}),
    }
  })

const ThreadId = Schema.String.pipe(
  Schema.pattern(/^[\w.:-]{1,100}$/, { message: () => "threadId must be 1-100 letters, digits, '-', '_', '.' or ':'" }),
)

/** `ask`: a message to a thread (or a new one), answered when the run ends or waits for approval. */
export const ask = tool({
  name: "ask",
  title: "Ask Aide",
  description:
    "Sends a message to Aide (in a thread, or a new one) and answers with its reply. When one of Aide's tool calls needs the owner's approval, the client is asked (elicitation) if it can be; otherwise the result says waiting_for_approval with the runId for `approve`.",
  input: Schema.Struct({
    message: Schema.String.pipe(Schema.minLength(1, { message: () => "message must not be empty" })).annotations({
      description: "What to ask or tell Aide",
    }),
    threadId: Schema.optional(ThreadId.annotations({ description: "The thread to continue; a new one when absent" })),
  }),
  readOnly: false,
  destructive: false,
  run: ({ message, threadId }, context) =>
    Effect.gen(function* () {
      const thread = threadId ?? (yield* (yield* Ids).uuid)
      const run = yield* (yield* Chat)
        .send({ threadId: thread, parts: [{ type: "text", text: message }] })
        .pipe(Effect.catchTags(sendErrors))
      return yield* answer(run, context)
    }),
})

/** `approve`: the owner's decision on a run waiting for approval (by its run id), then the rest of the answer. */
export const approve = tool({
  name: "approve",
  title: "Approve or deny a tool call",
  description:
    "Decides on a tool call Aide is waiting on (from ask's waiting_for_approval), then answers with the rest of Aide's reply.",
  input: Schema.Struct({
    runId: Schema.String.pipe(Schema.maxLength(200)),
    threadId: ThreadId,
    toolCallId: Schema.optional(
      Schema.String.pipe(Schema.maxLength(200)).annotations({
        description: "One call; every undecided call when absent",
      }),
    ),
    approved: Schema.Boolean.annotations({ description: "true runs the call, false denies it" }),
  }),
  readOnly: false,
  destructive: false,
  run: ({ runId, threadId, toolCallId, approved }, context) =>
    Effect.gen(function* () {
      const run = yield* (yield* Chat)
        .approve({ runId, threadId, toolCallId, approved })
        .pipe(Effect.catchTags(approveErrors))
      return yield* answer(run, context)
    }),
})

import { Chunk, Clock, Effect, Option, Schedule, Stream } from "effect"
import { Chat, type ChatRun } from "../../../chat/Chat.js"
import type { ChatPart } from "../../../chat/ChatModel.js"
import { Ids } from "../../../ids/Ids.js"
import { Threads } from "../../../threads/Threads.js"
import type { InboundMessage, PendingApproval } from "../ChannelContract.js"
import type { ChannelApproval, ConversationRef } from "../ChannelConversations.js"
import { ChannelConversations } from "../ChannelConversations.js"
import { type ChannelEndpoint, channelKey } from "../ChannelEndpoint.js"
import { causeMessage } from "./causeMessage.js"
import { type RunReply, replyOf, replyText } from "./RunReply.js"

/** What a chat failure before any content looks like in the conversation. */
const failureText = (error: { readonly _tag: string; readonly message?: string }): string => {
  switch (error._tag) {
    case "ChatBusy":
      return "⚠️ An answer is already running in this conversation's thread; please try again when it is done."
    case "ChatModelError":
      return `⚠️ The model could not answer: ${error.message ?? "unknown error"}`
    case "UnsupportedAttachment":
      return `⚠️ That attachment cannot be read: ${error.message ?? "unsupported type"}`
    case "InvalidChatRequest":
      return `⚠️ ${error.message ?? "the message was refused"}`
    case "RunNotFound":
    case "RunNotPending":
    case "ToolCallDecided":
    case "ToolCallNotFound":
      return "⚠️ That approval is no longer pending."
    default:
      return "⚠️ Something went wrong on the server; the message was not answered."
  }
}

/** Said when a message carries files only: a chat message needs text. */
const filesOnlyText = "(files attached)"

/**
 * A conversation's messages and approvals, each as one chat run drained to its end, the reply
 * sent back through the endpoint. Callers serialize per conversation (`ConversationQueues`).
 */
export const make = Effect.gen(function* () {
  const chat = yield* Chat
  const threads = yield* Threads
  const conversations = yield* ChannelConversations
  const ids = yield* Ids
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

  /** The conversation's thread; a new one when it has none or the owner deleted it. */
  const threadFor = (ref: ConversationRef) =>
    Effect.gen(function* () {
      const bound = yield* conversations.threadOf(ref)
      if (Option.isSome(bound)) {
        const exists = yield* threads.get(bound.value).pipe(
          Effect.as(true),
          Effect.catchTag("ThreadNotFound", () => Effect.succeed(false)),
        )
        if (exists) return bound.value
      }
      return yield* conversations.bind(ref, yield* ids.uuid, Option.getOrNull(bound), yield* now)
    })

  const drain = (run: ChatRun) =>
    Effect.map(Stream.runCollect(run.events), (events) =>
      replyOf(Chunk.toReadonlyArray(Chunk.map(events, (e) => e.chunk))),
    )

  /** Hands out an approval id per waiting call, durably, before the channel can answer one. */
  const approvalsOf = (ref: ConversationRef, run: ChatRun, reply: RunReply) =>
    Effect.gen(function* () {
      const handed: Array<ChannelApproval & { readonly toolName: string; readonly input: unknown }> = []
      for (const call of reply.waiting) {
        handed.push({
          approvalId: yield* ids.uuid,
          conversation: ref,
          threadId: run.threadId,
          runId: run.runId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
        })
      }
      yield* conversations.saveApprovals(handed, yield* now)
      return handed.map(
        (approval): PendingApproval => ({
          approvalId: approval.approvalId,
          toolName: approval.toolName,
          input: approval.input,
        }),
      )
    })

  const deliver = (
    endpoint: ChannelEndpoint,
    ref: ConversationRef,
    text: string,
    approvals: ReadonlyArray<PendingApproval>,
  ) => {
    const key = channelKey(endpoint.pluginId, endpoint.channelId)
    const send = endpoint.send
    if (send === null) {
      return Effect.logWarning("channels: a reply was dropped: the channel cannot send").pipe(
        Effect.annotateLogs({ channel: key }),
      )
    }
    return Effect.suspend(() => send({ conversationId: ref.conversationId, text, approvals })).pipe(
      Effect.catchAllDefect((cause) => Effect.fail(cause)),
      Effect.retry({ times: 2, schedule: Schedule.exponential("1 second") }),
      Effect.catchAllCause((cause) =>
        Effect.logError("channels: a reply could not be sent").pipe(
          Effect.annotateLogs({ channel: key, error: causeMessage(cause) }),
        ),
      ),
    )
  }

  /** Runs the chat effect, and replies with its answer, or with what went wrong. */
  const reply = <E extends { readonly _tag: string }, R>(
    endpoint: ChannelEndpoint,
    ref: ConversationRef,
    start: Effect.Effect<ChatRun, E, R>,
  ) =>
    Effect.gen(function* () {
      const started = yield* Effect.either(start)
      if (started._tag === "Left") {
        yield* Effect.logWarning("channels: the chat run did not start").pipe(
          Effect.annotateLogs({ channel: channelKey(endpoint.pluginId, endpoint.channelId), error: started.left._tag }),
        )
        return yield* deliver(endpoint, ref, failureText(started.left as never), [])
      }
      const answer = yield* drain(started.right)
      // A decision while other calls still wait: nothing new to say yet.
      if (answer.acknowledgement) return
      const approvals = yield* approvalsOf(ref, started.right, answer)
      yield* deliver(endpoint, ref, replyText(answer), approvals)
    })

  const inbound = (endpoint: ChannelEndpoint, message: InboundMessage) => {
    const ref = { pluginId: endpoint.pluginId, channelId: endpoint.channelId, conversationId: message.conversationId }
    return reply(
      endpoint,
      ref,
      Effect.gen(function* () {
        const threadId = yield* threadFor(ref)
        const text = message.text.trim() === "" ? filesOnlyText : message.text
        const files = (message.files ?? []).map(
          (file): ChatPart => ({
            type: "file",
            mediaType: file.mediaType,
            url: file.url,
            ...(file.filename === undefined ? {} : { filename: file.filename }),
          }),
        )
        return yield* chat.send({ threadId, parts: [{ type: "text", text }, ...files] })
      }),
    )
  }

  const answer = (endpoint: ChannelEndpoint, approval: ChannelApproval, approved: boolean) =>
    reply(
      endpoint,
      approval.conversation,
      chat.approve({ runId: approval.runId, threadId: approval.threadId, toolCallId: approval.toolCallId, approved }),
    )

  return { inbound, answer } as const
})

export type ConversationRuns = Effect.Effect.Success<typeof make>

import type { ChatTransport, UIMessage, UIMessageChunk } from "ai"
import type { ChatStream } from "./chatStream.js"
import type { AideClient } from "./client.js"
import { AideError } from "./errors.js"
import type { ChatPart } from "./types.js"

/** An AI SDK `ChatTransport` with Aide's thread ids: a chat's id is its thread's until `regenerate` forks it. */
export interface AideChatTransport<M extends UIMessage = UIMessage> extends ChatTransport<M> {
  /** The thread a chat currently writes to (its id, or the branch `regenerate` made). */
  readonly threadIdOf: (chatId: string) => string
}

type ToolPartLike = {
  readonly type: string
  readonly state?: string
  readonly toolCallId?: string
  readonly approval?: { readonly id: string; readonly approved?: boolean }
}

const toStream = (chunks: AsyncIterable<UIMessageChunk>): ReadableStream<UIMessageChunk> => {
  const iterator = chunks[Symbol.asyncIterator]()
  return new ReadableStream({
    async pull(controller) {
      const next = await iterator.next()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    async cancel() {
      await iterator.return?.()
    },
  })
}

/** The parts Aide takes from a UI message: text and (data URL) files. */
const chatParts = (message: UIMessage): Array<ChatPart> =>
  message.parts.flatMap((part): Array<ChatPart> => {
    if (part.type === "text") return [{ type: "text", text: part.text }]
    if (part.type === "file")
      return [
        {
          type: "file",
          mediaType: part.mediaType,
          url: part.url,
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        },
      ]
    return []
  })

/**
 * `useChat({ transport: aideChatTransport(client) })`: sends the new user message (its id kept
 * by the server), sends approvals made with `addToolApprovalResponse` to `/api/chat/approve`
 * (use `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`),
 * regenerates by forking the thread before the user message, resumes with
 * `GET /api/chat/:id/stream`, and stops the server's run when the chat is stopped.
 */
export const aideChatTransport = <M extends UIMessage = UIMessage>(client: AideClient): AideChatTransport<M> => {
  // Regenerate moves a chat to a branch; the chat id stays what the UI knows.
  const branches = new Map<string, string>()
  const threadIdOf = (chatId: string) => branches.get(chatId) ?? chatId

  const streamOf = (stream: ChatStream, signal: AbortSignal | undefined) => {
    signal?.addEventListener("abort", () => void client.chat.stop(stream.threadId).catch(() => {}), { once: true })
    return toStream(stream.chunks)
  }

  return {
    threadIdOf,
    // A reconnect without Last-Event-ID replays the run from its `start`.
    resumeStreamIsReplay: true,
    sendMessages: async ({ trigger, chatId, messages, abortSignal }) => {
      const threadId = threadIdOf(chatId)
      const last = messages.at(-1)
      if (last === undefined) throw new Error("aideChatTransport: no message to send")
      if (last.role === "assistant") {
        // addToolApprovalResponse: each decided call goes to /api/chat/approve by its approval
        // id; the decision completing the run's set answers with the continuation.
        const decided = (last.parts as ReadonlyArray<ToolPartLike>).filter(
          (part) => part.state === "approval-responded" && part.approval?.approved !== undefined,
        )
        if (decided.length === 0) throw new Error("aideChatTransport: the last message has no tool decision to send")
        let stream: ChatStream | undefined
        for (const part of decided) {
          if (stream !== undefined) for await (const _ of stream.chunks); // an acknowledgement: drained
          stream = await client.chat.approve({
            runId: part.approval!.id,
            threadId,
            ...(part.toolCallId === undefined ? {} : { toolCallId: part.toolCallId }),
            approved: part.approval!.approved === true,
            ...(abortSignal === undefined ? {} : { signal: abortSignal }),
          })
        }
        return streamOf(stream!, abortSignal)
      }
      const send = (target: string) =>
        client.chat.send({
          parts: chatParts(last),
          threadId: target,
          messageId: last.id,
          ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        })
      if (trigger !== "regenerate-message") return streamOf(await send(threadId), abortSignal)
      // A message whose answer failed is answered again in its own thread (the server takes its
      // id again while it is the thread's last, unanswered). One with an answer: Aide's history
      // is append-only, so the new answer goes to a branch holding what came before.
      try {
        return streamOf(await send(threadId), abortSignal)
      } catch (error) {
        if (
          !(error instanceof AideError && error.status === 400 && error.code === "messageId is already in the thread")
        )
          throw error
      }
      const fork = await client.threads.fork(threadId, last.id)
      branches.set(chatId, fork.thread.id)
      return streamOf(await send(fork.thread.id), abortSignal)
    },
    reconnectToStream: async ({ chatId, abortSignal }) => {
      const stream = await client.chat.resume(
        threadIdOf(chatId),
        abortSignal === undefined ? {} : { signal: abortSignal },
      )
      return stream === null ? null : toStream(stream.chunks)
    },
  }
}

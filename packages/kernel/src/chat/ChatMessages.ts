import type { UIMessage, UIMessageChunk } from "ai"
import { Effect } from "effect"
import { loadAi } from "../models/LoadAi.js"
import { redactText } from "../net/UrlRedaction.js"
import type { StoredMessage } from "../threads/Threads.js"
import type { ChatPart } from "./ChatModel.js"

/** Messages and chunks of a chat run: what the client sent, what the model streamed. */

/** Chunks that carry content: once one arrives, the response has started. */
export const isContent = (chunk: UIMessageChunk) =>
  chunk.type !== "start" && chunk.type !== "start-step" && chunk.type !== "message-metadata" && chunk.type !== "error"

/**
 * A model failure as answers and logs show it: URLs without credentials or query values (a
 * provider base URL `http://user:pw@host/v1?key=…` is echoed by fetch's own errors).
 */
export const errorMessage = (error: unknown): string => {
  if (error instanceof Error && error.message !== "") return redactText(error.message)
  if (typeof error === "string" && error !== "") return redactText(error)
  return "the model failed"
}

export const toUIParts = (parts: ReadonlyArray<ChatPart>) =>
  parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : {
          type: "file",
          mediaType: part.mediaType,
          url: part.url,
          ...(part.filename === undefined ? {} : { filename: part.filename }),
        },
  )

/**
 * The assistant message a client builds from `chunks`: what was produced before a failure, a
 * cut or a checkpoint. `continued` is the message a resumed run continues (its earlier parts).
 */
export const messageOf = (chunks: ReadonlyArray<UIMessageChunk>, continued?: StoredMessage) =>
  Effect.promise(async () => {
    const { readUIMessageStream } = await loadAi()
    let message: UIMessage | undefined
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk)
        controller.close()
      },
    })
    const base = continued === undefined ? undefined : (structuredClone(continued) as unknown as UIMessage)
    for await (const snapshot of readUIMessageStream({ stream, ...(base === undefined ? {} : { message: base }) })) {
      message = snapshot
    }
    return message
  })

const fallbackTitleLength = 60

/** The first words of the first user text: the title until (or unless) the model names the thread. */
export const fallbackTitle = (messages: ReadonlyArray<StoredMessage>): string => {
  for (const message of messages) {
    if (message.role !== "user") continue
    for (const part of message.parts as ReadonlyArray<{ type?: string; text?: string }>) {
      if (part.type === "text" && typeof part.text === "string" && part.text.trim() !== "") {
        const text = part.text.trim().replace(/\s+/g, " ")
        return text.length <= fallbackTitleLength ? text : `${text.slice(0, fallbackTitleLength - 1).trimEnd()}…`
      }
    }
  }
  return "New conversation"
}

import type { ToolSet, UIMessage } from "ai"
import type { loadAi } from "../models/LoadAi.js"
import type { StoredMessage } from "../threads/Threads.js"

/**
 * The last resort of a model request whose history the AI SDK refuses as a whole ("The messages
 * do not match the ModelMessage[] schema", a conversion error): one stored part of a shape
 * nobody foresaw, written by an older server or another writer. Each message is checked alone
 * and, when refused, each of its parts; a refused part is replaced by a note to the model, so
 * one bad part fails neither its message nor every later request of its thread. Only run after
 * a refusal: a healthy history is never checked twice.
 */

type Ai = Awaited<ReturnType<typeof loadAi>>

const refusals = new Set(["AI_InvalidPromptError", "AI_MessageConversionError"])

/** Whether `error` is the SDK refusing the history itself (not the provider, not the network). */
export const isPromptRefusal = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const { name } = error as { name?: unknown }
  // A stack overflow while walking a value is the same refusal, unnamed.
  return (typeof name === "string" && refusals.has(name)) || error instanceof RangeError
}

export interface RepairedPart {
  readonly messageId: string
  readonly index: number
}

const note = { type: "text", text: "[a stored part of this message was left out: it could not be read]" }

export const repair = async (
  ai: Ai,
  messages: ReadonlyArray<StoredMessage>,
  tools: ToolSet,
): Promise<{ readonly messages: ReadonlyArray<StoredMessage>; readonly repaired: ReadonlyArray<RepairedPart> }> => {
  const accepts = async (candidate: StoredMessage): Promise<boolean> => {
    try {
      const converted = await ai.convertToModelMessages([candidate as unknown as UIMessage], { tools })
      return converted.every((message) => ai.modelMessageSchema.safeParse(message).success)
    } catch {
      return false
    }
  }
  const repaired: Array<RepairedPart> = []
  const result: Array<StoredMessage> = []
  for (const message of messages) {
    if (await accepts(message)) {
      result.push(message)
      continue
    }
    const parts: Array<unknown> = []
    for (const [index, part] of message.parts.entries()) {
      if (await accepts({ ...message, parts: [part] })) parts.push(part)
      else {
        repaired.push({ messageId: message.id, index })
        parts.push(note)
      }
    }
    result.push({ ...message, parts })
  }
  return { messages: result, repaired }
}

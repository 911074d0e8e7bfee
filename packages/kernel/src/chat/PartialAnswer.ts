import type { UIMessageChunk } from "ai"
import type { StoredMessage } from "../threads/Threads.js"

/**
 * The answer of a run as far as it went: what was sent to clients, kept compact enough to be
 * rebuilt into a message at any moment (a checkpoint, a cut), and made storable. A stored
 * message is never left `streaming`: whoever reads it later sees a settled answer.
 */

type Delta = Extract<UIMessageChunk, { type: "text-delta" | "reasoning-delta" }>

/**
 * Appends `chunk` to `sent`, merging it into the previous delta of the same part: a long answer
 * stays a handful of chunks (V8 concatenates strings as ropes), not one object per token.
 */
export const record = (sent: Array<UIMessageChunk>, chunk: UIMessageChunk): void => {
  const last = sent.at(-1)
  if (
    last !== undefined &&
    (chunk.type === "text-delta" || chunk.type === "reasoning-delta") &&
    last.type === chunk.type &&
    last.id === chunk.id
  ) {
    sent[sent.length - 1] = { ...last, delta: (last as Delta).delta + chunk.delta } as Delta
    return
  }
  if (last !== undefined && chunk.type === "tool-input-delta" && last.type === chunk.type) {
    if (last.toolCallId === chunk.toolCallId) {
      sent[sent.length - 1] = { ...last, inputTextDelta: last.inputTextDelta + chunk.inputTextDelta }
      return
    }
  }
  sent.push(chunk)
}

export const interruptedToolText = "The run ended before this tool call completed."

interface Part {
  readonly type?: unknown
  readonly state?: unknown
  readonly [key: string]: unknown
}

const isToolPart = (part: Part) =>
  typeof part.type === "string" && (part.type === "dynamic-tool" || part.type.startsWith("tool-"))

/**
 * `message` with nothing left in flight: text and reasoning `done`; tool calls that never got a
 * result end in `output-error` (a call without a result would break the next model request).
 * `keepApprovals`: calls waiting for the owner stay so (the run is suspended with the message);
 * a checkpoint has no suspended run behind it, so there they end too.
 */
export const settle = (message: StoredMessage, options: { readonly keepApprovals: boolean }): StoredMessage => ({
  ...message,
  parts: message.parts.map((raw) => {
    const part = raw as Part
    if ((part.type === "text" || part.type === "reasoning") && part.state === "streaming") {
      return { ...part, state: "done" }
    }
    if (!isToolPart(part)) return raw
    const waiting = part.state === "approval-requested" || part.state === "approval-responded"
    if (part.state === "input-streaming" || part.state === "input-available" || (waiting && !options.keepApprovals)) {
      const { approval: _approval, ...rest } = part
      return { ...rest, state: "output-error", input: part.input ?? {}, errorText: interruptedToolText }
    }
    return raw
  }),
})

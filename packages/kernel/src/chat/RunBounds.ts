import type { UIMessageChunk } from "ai"
import { Duration } from "effect"

/**
 * The bounds of one chat run. A provider that streams forever, or stalls mid-stream, would
 * otherwise hold memory and the thread without end: the run is cut, keeping what was produced.
 */
export interface RunBoundsOptions {
  /** Size of the answer (text, reasoning, tool input and output) in UTF-8 bytes; default 1 MiB. */
  readonly maxAnswerBytes?: number
  /** Longest silence of the model (or of a tool it called) before the run is cut; default 120 s. */
  readonly idleTimeout?: Duration.DurationInput
}

export const defaultMaxAnswerBytes = 1024 * 1024
export const defaultIdleTimeout = Duration.seconds(120)

export interface RunBounds {
  readonly maxAnswerBytes: number
  readonly idleTimeout: Duration.Duration
}

export const resolve = (options: RunBoundsOptions = {}): RunBounds => ({
  maxAnswerBytes: options.maxAnswerBytes ?? defaultMaxAnswerBytes,
  idleTimeout: Duration.decode(options.idleTimeout ?? defaultIdleTimeout),
})

/** Why a run was cut short; stored as `metadata.interrupted` of its message. */
export type Interruption = "max-answer-bytes" | "idle-timeout" | "model-error" | "stopped"

export const cutText = (reason: "max-answer-bytes" | "idle-timeout", bounds: RunBounds): string =>
  reason === "max-answer-bytes"
    ? `The answer reached the limit of ${bounds.maxAnswerBytes} bytes and was cut.`
    : `The model sent nothing for ${Duration.format(bounds.idleTimeout)}; the answer was cut.`

/** UTF-8 length of `text` without encoding it. */
const utf8Length = (text: string): number => {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1
  }
  return bytes
}

/** What `chunk` adds to the answer: its delta, else its JSON (tool input and output, sources…). */
export const chunkBytes = (chunk: UIMessageChunk): number => {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return utf8Length(chunk.delta)
    case "tool-input-delta":
      return utf8Length(chunk.inputTextDelta)
    case "start":
    case "start-step":
    case "finish-step":
    case "finish":
    case "text-start":
    case "text-end":
    case "reasoning-start":
    case "reasoning-end":
    case "message-metadata":
      return 0
    default:
      return utf8Length(JSON.stringify(chunk))
  }
}

import type { StoredMessage } from "../threads/Threads.js"
import { boundedParts, maxPartDepth } from "../tools/BoundedValue.js"
import { dataUrlProblem } from "./DataUrl.js"

/** A part of a stored message that cannot be sent to a model as it is. */
export interface UnusablePart {
  readonly messageId: string
  readonly index: number
  readonly problem: string
}

interface FilePart {
  readonly type: "file"
  readonly url: string
  readonly filename?: string
}

const isDataFilePart = (part: unknown): part is FilePart => {
  if (typeof part !== "object" || part === null) return false
  const { type, url } = part as { type?: unknown; url?: unknown }
  return type === "file" && typeof url === "string" && url.startsWith("data:")
}

/**
 * The history as a model can take it: a stored file part whose data URL is malformed (stored
 * before validation, or by another writer) is replaced by a note saying so, and a part nested
 * deeper than `maxPartDepth` (a tool output stored before outputs were bounded) has its deep
 * values replaced by a marker, instead of failing every later request of the thread. The
 * stored messages themselves are left unchanged.
 */
export const usableHistory = (
  messages: ReadonlyArray<StoredMessage>,
): { readonly messages: ReadonlyArray<StoredMessage>; readonly unusable: ReadonlyArray<UnusablePart> } => {
  const unusable: Array<UnusablePart> = []
  const usable = messages.map((message) => {
    const shallow = boundedParts(message.parts)
    let changed = shallow !== message.parts
    if (changed) {
      shallow.forEach((part, index) => {
        if (part !== message.parts[index])
          unusable.push({ messageId: message.id, index, problem: `nested deeper than ${maxPartDepth} levels` })
      })
    }
    const parts = shallow.map((part, index) => {
      if (!isDataFilePart(part)) return part
      const problem = dataUrlProblem(part.url)
      if (problem === undefined) return part
      changed = true
      unusable.push({ messageId: message.id, index, problem })
      return note(part, `its data URL ${problem}`)
    })
    return changed ? { ...message, parts } : message
  })
  return { messages: usable, unusable }
}

const note = (part: { readonly filename?: string }, why: string) => ({
  type: "text",
  text: `[${part.filename === undefined ? "an attachment" : `the attachment ${part.filename}`} was left out: ${why}]`,
})

/** True when a message before the last one holds a file part. */
export const hasEarlierAttachments = (messages: ReadonlyArray<StoredMessage>): boolean =>
  messages.slice(0, -1).some((message) => message.parts.some((part) => (part as { type?: unknown }).type === "file"))

/**
 * The history without the file parts of earlier messages: what a run retries with when the
 * provider rejected the request, so that one attachment it cannot take (a type it does not
 * support, data it cannot decode) fails its own message, not every later one of the thread.
 */
export const withoutEarlierAttachments = (messages: ReadonlyArray<StoredMessage>): ReadonlyArray<StoredMessage> =>
  messages.map((message, index) =>
    index === messages.length - 1 || !message.parts.some((part) => (part as { type?: unknown }).type === "file")
      ? message
      : {
          ...message,
          parts: message.parts.map((part) =>
            (part as { type?: unknown }).type === "file"
              ? note(part as { filename?: string }, "the model rejected it earlier")
              : part,
          ),
        },
  )

const rejectionNames = new Set([
  "AI_UnsupportedFunctionalityError",
  "AI_InvalidDataContentError",
  "AI_InvalidPromptError",
  "AI_DownloadError",
])

/**
 * Whether `error` says the request itself was refused (a part the provider cannot take), as
 * opposed to an outage, a rate limit or a bad key, which no change of the history would fix.
 */
export const isRequestRejection = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const { name, statusCode } = error as { name?: unknown; statusCode?: unknown }
  if (typeof statusCode === "number")
    return statusCode === 400 || statusCode === 413 || statusCode === 415 || statusCode === 422
  return typeof name === "string" && rejectionNames.has(name)
}

import type { StoredMessage } from "../threads/Threads.js"
import type { ChatPart } from "./ChatModel.js"

/**
 * Which attachments a chat message may carry. Models take images, audio, video, text and PDF
 * (each provider a subset of these); anything else (`application/x-msdownload`, `application/zip`)
 * no model takes, so it is refused before the message is stored instead of failing at the provider.
 */
const acceptedFamilies = ["image/", "audio/", "video/", "text/"]
const acceptedTypes = new Set(["application/pdf"])

export const isAcceptedMediaType = (mediaType: string): boolean => {
  const type = mediaType.toLowerCase()
  return acceptedTypes.has(type) || acceptedFamilies.some((family) => type.startsWith(family))
}

/** The first file part no model takes, with its index, or undefined. */
export const unacceptedAttachment = (
  parts: ReadonlyArray<ChatPart>,
): { readonly index: number; readonly mediaType: string } | undefined => {
  const index = parts.findIndex((part) => part.type === "file" && !isAcceptedMediaType(part.mediaType))
  const part = parts[index]
  return part?.type === "file" ? { index, mediaType: part.mediaType } : undefined
}

export const unacceptedMessage = (found: { readonly index: number; readonly mediaType: string }) =>
  `parts.${found.index}.mediaType: attachments of type ${found.mediaType} are not supported ` +
  "(image/*, audio/*, video/*, text/* and application/pdf are)"

/** Errors the AI SDK raises when a provider cannot take a part (checked before any request). */
const partRejections = new Set(["AI_UnsupportedFunctionalityError", "AI_InvalidDataContentError"])

/**
 * Whether `error` is the SDK refusing an attachment of the newest message of `history` (e.g.
 * `video/mp4` for a model that takes only images): the client's mistake, not a server failure.
 */
export const rejectsNewestAttachment = (error: unknown, history: ReadonlyArray<StoredMessage>): boolean => {
  if (typeof error !== "object" || error === null) return false
  const { name } = error as { name?: unknown }
  if (typeof name !== "string" || !partRejections.has(name)) return false
  const newest = history.at(-1)
  return newest?.parts.some((part) => (part as { type?: unknown }).type === "file") ?? false
}

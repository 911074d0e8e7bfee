// @ts-check
/**
 * The body of an inbound webhook request, checked: a message for the assistant, or the owner's
 * answer to a pending approval. Anything else is a 400 that says what is wrong.
 */

/** @typedef {import("@aide/plugin").InboundFile} InboundFile */

/** The conversation of a message that names none. */
export const DEFAULT_CONVERSATION = "default"

const MAX_FILES = 10

/**
 * @typedef {{ kind: "message", conversationId: string, text: string, files: InboundFile[] }
 *   | { kind: "approval", conversationId: string, approvalId: string, approved: boolean }
 *   | { kind: "invalid", error: string }} Inbound
 */

/** @param {unknown} value */
const isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value)

/** @param {unknown} value */
const isConversationId = (value) => typeof value === "string" && value.length > 0 && value.length <= 200

/**
 * @param {unknown} file
 * @param {number} index
 * @returns {InboundFile | string} the file, or what is wrong with it
 */
const fileOf = (file, index) => {
  if (!isRecord(file)) return `files[${index}] must be an object`
  const { mediaType, url, filename } = /** @type {Record<string, unknown>} */ (file)
  if (typeof mediaType !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)) {
    return `files[${index}].mediaType must be a media type such as "image/png"`
  }
  if (typeof url !== "string" || !url.startsWith(`data:${mediaType};base64,`)) {
    return `files[${index}].url must be a data URL: "data:${mediaType};base64,…"`
  }
  if (filename !== undefined && typeof filename !== "string") return `files[${index}].filename must be a string`
  return filename === undefined ? { mediaType, url } : { mediaType, url, filename }
}

/**
 * @param {string} body the raw request body
 * @returns {Inbound}
 */
export const parseInbound = (body) => {
  let json
  try {
    json = JSON.parse(body)
  } catch {
    return { kind: "invalid", error: "the body must be JSON" }
  }
  if (!isRecord(json)) return { kind: "invalid", error: "the body must be a JSON object" }
  const { conversationId, text, files, approval } = json
  if (conversationId !== undefined && !isConversationId(conversationId)) {
    return { kind: "invalid", error: "conversationId must be a non-empty string of at most 200 characters" }
  }
  if (approval !== undefined) {
    if (conversationId === undefined) return { kind: "invalid", error: "an approval needs its conversationId" }
    if (!isRecord(approval) || typeof approval.approvalId !== "string" || approval.approvalId === "") {
      return { kind: "invalid", error: "approval.approvalId must be a non-empty string" }
    }
    if (typeof approval.approved !== "boolean") return { kind: "invalid", error: "approval.approved must be a boolean" }
    return { kind: "approval", conversationId, approvalId: approval.approvalId, approved: approval.approved }
  }
  if (text !== undefined && typeof text !== "string") return { kind: "invalid", error: "text must be a string" }
  if (files !== undefined && (!Array.isArray(files) || files.length > MAX_FILES)) {
    return { kind: "invalid", error: `files must be an array of at most ${MAX_FILES} files` }
  }
  /** @type {InboundFile[]} */
  const checked = []
  for (const [index, file] of (files ?? []).entries()) {
    const result = fileOf(file, index)
    if (typeof result === "string") return { kind: "invalid", error: result }
    checked.push(result)
  }
  if ((text ?? "").trim() === "" && checked.length === 0) {
    return { kind: "invalid", error: "text (a non-empty string) or files is required" }
  }
  return { kind: "message", conversationId: conversationId ?? DEFAULT_CONVERSATION, text: text ?? "", files: checked }
}

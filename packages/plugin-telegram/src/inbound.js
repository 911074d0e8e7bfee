// @ts-check
/**
 * What comes in from Telegram, the same for long polling and the webhook: the owner's messages
 * (text, photos, documents) go to the assistant, the owner's button presses answer approvals.
 * Anyone else is ignored, and logged without what they wrote.
 */
import { approvalIdOf, grammySignal } from "./outbound.js"

/** @typedef {import("@aide/plugin").ChannelContext} ChannelContext */
/** @typedef {import("@aide/plugin").InboundFile} InboundFile */
/** @typedef {import("grammy").Api} Api */
/** @typedef {import("grammy/types").Update} Update */
/** @typedef {import("grammy/types").Message} Message */

/** Files larger than this are not downloaded (the owner is told). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024

/**
 * @typedef {object} Inbound
 * @property {Api} api
 * @property {string} ownerId
 * @property {(filePath: string) => string} fileUrl where a `getFile` path is downloaded from
 */

/**
 * Reads a body, refusing more than `limit` bytes even when the server lied about its length.
 * @param {Response} response
 * @param {number} limit
 */
const readCapped = async (response, limit) => {
  const declared = Number(response.headers.get("content-length") ?? "0")
  if (declared > limit) throw new Error("file too large")
  const buffer = Buffer.from(await response.arrayBuffer())
  if (buffer.length > limit) throw new Error("file too large")
  return buffer
}

/**
 * @param {Inbound} inbound
 * @param {string} fileId
 * @param {string} mediaType
 * @param {string | undefined} filename
 * @param {AbortSignal} signal
 * @returns {Promise<InboundFile>}
 */
const download = async (inbound, fileId, mediaType, filename, signal) => {
  const file = await inbound.api.getFile(fileId, grammySignal(signal))
  if (file.file_path === undefined) throw new Error("Telegram gave no path for the file")
  if ((file.file_size ?? 0) > MAX_FILE_BYTES) throw new Error("file too large")
  const response = await fetch(inbound.fileUrl(file.file_path), {
    signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
  })
  if (!response.ok) throw new Error(`the file download answered ${response.status}`)
  const bytes = await readCapped(response, MAX_FILE_BYTES)
  const url = `data:${mediaType};base64,${bytes.toString("base64")}`
  return filename === undefined ? { mediaType, url } : { mediaType, url, filename }
}

/**
 * The file a message carries, if any: the largest photo size, or the document.
 * @param {Message} message
 * @returns {{ fileId: string, size: number, mediaType: string, filename: string | undefined } | null}
 */
const attachmentOf = (message) => {
  const photo = message.photo?.at(-1)
  if (photo !== undefined) {
    return { fileId: photo.file_id, size: photo.file_size ?? 0, mediaType: "image/jpeg", filename: undefined }
  }
  const document = message.document
  if (document !== undefined) {
    return {
      fileId: document.file_id,
      size: document.file_size ?? 0,
      mediaType: document.mime_type ?? "application/octet-stream",
      filename: document.file_name,
    }
  }
  return null
}

/**
 * @param {Inbound} inbound
 * @param {Message} message
 * @param {ChannelContext} context
 */
const onMessage = async (inbound, message, context) => {
  const text = message.text ?? message.caption ?? ""
  const attachment = attachmentOf(message)
  /** @type {InboundFile[]} */
  const files = []
  if (attachment !== null) {
    try {
      if (attachment.size > MAX_FILE_BYTES) throw new Error("file too large")
      files.push(await download(inbound, attachment.fileId, attachment.mediaType, attachment.filename, context.signal))
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      context.log("telegram: a file was not passed on", { reason })
      const limit = `${MAX_FILE_BYTES / 1024 / 1024} MiB`
      await inbound.api.sendMessage(message.chat.id, `The file was not passed on (${reason}; the limit is ${limit}).`)
    }
  }
  if (text === "" && files.length === 0) return
  const from = message.from
  const name = [from?.first_name, from?.last_name].filter(Boolean).join(" ")
  await context.receive({
    conversationId: String(message.chat.id),
    text,
    ...(files.length > 0 ? { files } : {}),
    ...(from === undefined ? {} : { sender: name === "" ? { id: String(from.id) } : { id: String(from.id), name } }),
  })
}

/**
 * @param {Inbound} inbound
 * @param {import("grammy/types").CallbackQuery} query
 * @param {ChannelContext} context
 */
const onCallbackQuery = async (inbound, query, context) => {
  const message = query.message
  const decision = approvalIdOf(query.data ?? "", message !== undefined && "text" in message ? message.text : undefined)
  if (decision === null || message === undefined) {
    await inbound.api.answerCallbackQuery(query.id)
    return
  }
  const conversationId = String(message.chat.id)
  try {
    await context.answerApproval({ conversationId, ...decision })
  } catch (error) {
    context.log("telegram: the approval answer was refused", { error: String(error) })
    await inbound.api.answerCallbackQuery(query.id, { text: "This approval could not be recorded." })
    return
  }
  await inbound.api.answerCallbackQuery(query.id, { text: decision.approved ? "Approved" : "Denied" })
  // The buttons go away so that the same call is not answered twice; an old message may refuse.
  await inbound.api
    .editMessageReplyMarkup(message.chat.id, message.message_id, { reply_markup: { inline_keyboard: [] } })
    .catch(() => undefined)
}

/**
 * Handles one update from Telegram.
 * @param {Inbound} inbound
 * @param {Update} update
 * @param {ChannelContext} context
 */
export const handleUpdate = async (inbound, update, context) => {
  const message = update.message
  const query = update.callback_query
  const from = message?.from ?? query?.from
  if (from === undefined || (message === undefined && query === undefined)) return
  if (String(from.id) !== inbound.ownerId) {
    context.log("telegram: ignored an update from someone who is not the owner", {
      userId: from.id,
      kind: message === undefined ? "callback_query" : "message",
    })
    if (query !== undefined) await inbound.api.answerCallbackQuery(query.id)
    return
  }
  if (message !== undefined) await onMessage(inbound, message, context)
  else if (query !== undefined) await onCallbackQuery(inbound, query, context)
}

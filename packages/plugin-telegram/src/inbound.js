// @ts-check
/**
 * What comes in from Telegram, the same for long polling and the webhook: messages (text,
 * photos, documents) go to the assistant with their sender, group and mention, button presses
 * answer approvals with who pressed them. Aide's gateway decides who may talk (the plugin's
 * `allowFrom`, `ownerId`, `pairing` and `groups` settings): a sender it refuses gets nothing.
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
 * @property {() => Promise<{ id: number, username?: string }>} me the bot itself (for mentions)
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
      // Told only to the owner: anyone else must not learn that a bot reads this chat.
      if (String(message.from?.id) === inbound.ownerId) {
        const limit = `${MAX_FILE_BYTES / 1024 / 1024} MiB`
        await inbound.api.sendMessage(message.chat.id, `The file was not passed on (${reason}; the limit is ${limit}).`)
      }
    }
  }
  if (text === "" && files.length === 0) return
  const group = message.chat.type !== "private"
  await context.receive({
    conversationId: String(message.chat.id),
    text,
    ...(files.length > 0 ? { files } : {}),
    ...(message.from === undefined ? {} : { sender: senderOf(message.from) }),
    ...(group ? { group, mentioned: await mentions(inbound, message) } : {}),
  })
}

/**
 * @param {import("grammy/types").User} from
 * @returns {{ id: string, name?: string }}
 */
const senderOf = (from) => {
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ")
  return name === "" ? { id: String(from.id) } : { id: String(from.id), name }
}

/**
 * Whether a group message is addressed to the bot: an @mention of it, or a reply to its message.
 * @param {Inbound} inbound
 * @param {Message} message
 */
const mentions = async (inbound, message) => {
  const me = await inbound.me()
  if (message.reply_to_message?.from?.id === me.id) return true
  const text = message.text ?? message.caption ?? ""
  const entities = message.entities ?? message.caption_entities ?? []
  return entities.some((entity) => {
    if (entity.type === "text_mention") return entity.user.id === me.id
    if (entity.type !== "mention" || me.username === undefined) return false
    return text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === `@${me.username.toLowerCase()}`
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
    await context.answerApproval({ conversationId, ...decision, sender: senderOf(query.from) })
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
  if (message !== undefined) await onMessage(inbound, message, context)
  else if (query !== undefined) await onCallbackQuery(inbound, query, context)
}

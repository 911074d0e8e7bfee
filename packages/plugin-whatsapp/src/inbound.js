// @ts-check
/**
 * What comes in from WhatsApp (a webhook POST, already verified by Aide against the app secret):
 * the business number's messages — text, media passed on as files, reply-button taps answering
 * approvals. Status callbacks (sent, delivered, read, failed) are not messages: a failed one is
 * logged, the rest ignored. Who may talk is the gateway's decision (`allowFrom`, `pairing`).
 */
import { MAX_MEDIA_BYTES } from "./graph.js"
import { approvalOf } from "./outbound.js"
import { e164 } from "./settings.js"
// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Graph } from "./graph.js" */
/** @import { Settings } from "./settings.js" */
/** @import { ChannelContext, InboundFile } from "@aide/plugin" */

/** Message ids seen lately: Meta redelivers a webhook until it is answered 200 (up to a day). */
export class Seen {
  constructor(max = 5000) {
    /** @type {Set<string>} */
    this.ids = new Set()
    this.max = max
  }
  /** @param {string} id */
  first(id) {
    if (this.ids.has(id)) return false
    this.ids.add(id)
    if (this.ids.size > this.max) {
      const oldest = this.ids.values().next().value
      if (oldest !== undefined) this.ids.delete(oldest)
    }
    return true
  }
}

/**
 * @typedef {object} Inbound
 * @property {Settings} settings
 * @property {(context: ChannelContext) => Graph} graphOf
 * @property {Seen} seen
 * @property {Map<string, number>} lastInbound when each user last wrote (ms): the 24-hour window
 * @property {(context: ChannelContext, to: string, text: string) => Promise<void>} tell a short note back
 */

/**
 * Bytes to base64 with `btoa` (no `Buffer` in a compartment), 32 KiB at a time.
 * @param {Uint8Array} bytes
 */
const base64 = (bytes) => {
  let binary = ""
  for (let at = 0; at < bytes.byteLength; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000))
  }
  return btoa(binary)
}

const MEDIA_TYPES = new Set(["image", "document", "audio", "video", "sticker"])

/**
 * @param {Inbound} inbound
 * @param {any} message
 * @param {string | undefined} name
 * @param {ChannelContext} context
 */
const onMessage = async (inbound, message, name, context) => {
  const from = String(message.from ?? "")
  if (!/^\d{1,20}$/.test(from) || typeof message.id !== "string" || !inbound.seen.first(message.id)) return
  const at = Number(message.timestamp) * 1000
  inbound.lastInbound.set(from, Number.isFinite(at) && at > 0 ? Math.min(at, Date.now()) : Date.now())
  const sender = name === undefined || name === "" ? { id: e164(from) } : { id: e164(from), name }
  if (message.type === "interactive" && message.interactive?.type === "button_reply") {
    const decision = approvalOf(String(message.interactive.button_reply?.id ?? ""))
    if (decision === null) return
    try {
      await context.answerApproval({ conversationId: from, ...decision })
    } catch (error) {
      context.log("whatsapp: the approval answer was refused", { error: String(error) })
      await inbound.tell(context, from, "This approval could not be recorded.")
    }
    return
  }
  let text = message.type === "text" ? String(message.text?.body ?? "") : ""
  /** @type {InboundFile[]} */
  const files = []
  if (MEDIA_TYPES.has(message.type)) {
    const media = message[message.type] ?? {}
    text = String(media.caption ?? "")
    try {
      const { bytes, mediaType } = await inbound.graphOf(context).media(String(media.id ?? ""), context.signal)
      const url = `data:${mediaType};base64,${base64(bytes)}`
      files.push(typeof media.filename === "string" ? { mediaType, url, filename: media.filename } : { mediaType, url })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      context.log("whatsapp: a file was not passed on", { reason })
      // Told only to allowed senders: a stranger must not learn that a bot is here.
      if (inbound.settings.allowFrom.includes(e164(from)))
        await inbound.tell(
          context,
          from,
          `The file was not passed on (${reason}; the limit is ${MAX_MEDIA_BYTES / 1024 / 1024} MiB).`,
        )
    }
  }
  if (text.trim() === "" && files.length === 0) return
  await context.receive({
    conversationId: from,
    text,
    ...(files.length > 0 ? { files } : {}),
    sender,
    group: false,
  })
}

/**
 * One webhook notification (`object: "whatsapp_business_account"`).
 * @param {Inbound} inbound
 * @param {any} notification
 * @param {ChannelContext} context
 */
export const handleNotification = async (inbound, notification, context) => {
  for (const entry of Array.isArray(notification?.entry) ? notification.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value
      if (change?.field !== "messages" || typeof value !== "object" || value === null) continue
      // Another number of the same business account is not ours.
      if (String(value.metadata?.phone_number_id ?? "") !== inbound.settings.phoneNumberId) continue
      for (const status of Array.isArray(value.statuses) ? value.statuses : []) {
        if (status?.status === "failed") {
          context.log("whatsapp: a message was not delivered", {
            code: status.errors?.[0]?.code,
            title: status.errors?.[0]?.title,
          })
        }
      }
      const names = new Map(
        (Array.isArray(value.contacts) ? value.contacts : []).map((/** @type {any} */ contact) => [
          String(contact?.wa_id ?? ""),
          typeof contact?.profile?.name === "string" ? contact.profile.name : undefined,
        ]),
      )
      for (const message of Array.isArray(value.messages) ? value.messages : []) {
        await onMessage(inbound, message, names.get(String(message?.from ?? "")), context)
      }
    }
  }
}

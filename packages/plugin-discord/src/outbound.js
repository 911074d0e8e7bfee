// @ts-check
/**
 * What goes out to Discord: replies (split at 2,000 characters, then one message with approve /
 * deny buttons per pending tool call) and notifications to the owner's DM.
 *
 * No duplicate after a retry: every message is created with a `nonce` and `enforce_nonce: true`,
 * so Discord returns the message it already made for a nonce it saw in the last minutes instead
 * of posting it again. The REST client retries a chunk with the same nonce; when a whole reply
 * failed part way and Aide sends it again (it retries a reply three times), the same reply gets
 * the same nonces back from `NonceMemo`, so the chunks that did go out are not posted twice.
 */
/** @import { Notification, OutgoingMessage, PendingApproval } from "@aide/plugin" */
/** @import { Rest } from "./rest.js" */
import { toDiscordMessages } from "./format.js"

/** Discord's limit on a button's `custom_id`. */
export const CUSTOM_ID_LIMIT = 100
const PREFIX = "aide:"
const INPUT_PREVIEW = 1200
/**
 * How long a failed reply's nonces are kept for Aide's retry (it retries after 1 s and 2 s; a
 * rate-limited channel may take longer). Discord remembers a nonce "for a few minutes".
 */
const MEMO_MS = 5 * 60_000

/** @param {unknown} input */
const preview = (input) => {
  let json
  try {
    json = JSON.stringify(input, null, 2) ?? String(input)
  } catch {
    json = String(input)
  }
  json = json.replaceAll("```", "``\u200b`")
  return json.length > INPUT_PREVIEW ? `${json.slice(0, INPUT_PREVIEW)}…` : json
}

/**
 * A button's `custom_id`: `aide:a:<approvalId>` / `aide:d:<approvalId>`. The approval id is
 * opaque and short (the gateway's are random ids); one too long for Discord's 100 characters
 * cannot be offered as a button.
 * @param {boolean} approved
 * @param {string} approvalId
 */
const customId = (approved, approvalId) => `${PREFIX}${approved ? "a" : "d"}:${approvalId}`

/**
 * Reads a button's `custom_id` back. Null for ids this channel did not make.
 * @param {string} id
 * @returns {{ approved: boolean, approvalId: string } | null}
 */
export const approvalOf = (id) => {
  const match = /^aide:([ad]):(.+)$/s.exec(id)
  return match === null ? null : { approved: match[1] === "a", approvalId: match[2] ?? "" }
}

/**
 * The content and buttons of one approval message.
 * @param {PendingApproval} approval
 */
export const approvalMessage = (approval) => {
  if (customId(true, approval.approvalId).length > CUSTOM_ID_LIMIT) {
    throw new Error(`discord: an approval id longer than ${CUSTOM_ID_LIMIT - 7} characters cannot be a button`)
  }
  const name = approval.toolName.replaceAll("`", "'").slice(0, 100)
  return {
    content: `🔧 **Approve tool call?** \`${name}\`\n\`\`\`json\n${preview(approval.input)}\n\`\`\``,
    components: [
      {
        type: 1,
        components: [
          { type: 2, style: 3, label: "Approve", custom_id: customId(true, approval.approvalId) },
          { type: 2, style: 4, label: "Deny", custom_id: customId(false, approval.approvalId) },
        ],
      },
    ],
  }
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** A fresh nonce: 20 random base64url characters (Discord allows 25); Web Crypto, no `node:` import. */
const freshNonce = () => Array.from(crypto.getRandomValues(new Uint8Array(20)), (byte) => ALPHABET[byte & 63]).join("")

/**
 * The nonces of replies that failed, for the same reply sent again.
 * @param {() => number} now
 */
export const createNonceMemo = (now = Date.now) => {
  /** @type {Map<string, { nonces: string[], until: number }>} */
  const failed = new Map()
  return {
    /**
     * The nonces for a reply's `count` messages: those of the same reply that failed lately, else fresh.
     * @param {string} key
     * @param {number} count
     */
    take: (key, count) => {
      for (const [other, entry] of failed) if (entry.until < now()) failed.delete(other)
      const previous = failed.get(key)
      failed.delete(key)
      return Array.from({ length: count }, (_, index) => previous?.nonces[index] ?? freshNonce())
    },
    /** @param {string} key @param {string[]} nonces */
    failed: (key, nonces) => {
      if (failed.size >= 256) failed.delete(failed.keys().next().value ?? "")
      failed.set(key, { nonces, until: now() + MEMO_MS })
    },
  }
}

/** @typedef {ReturnType<typeof createNonceMemo>} NonceMemo */

/**
 * Posts messages in order, each with its nonce; remembers the nonces when one fails.
 * @param {Rest} rest
 * @param {NonceMemo} memo
 * @param {string} channelId
 * @param {string} key what identifies this reply if it is sent again
 * @param {ReadonlyArray<Record<string, unknown>>} bodies
 * @param {AbortSignal} [signal]
 */
const post = async (rest, memo, channelId, key, bodies, signal) => {
  const nonces = memo.take(key, bodies.length)
  try {
    for (const [index, body] of bodies.entries()) {
      await rest.call("POST", `/channels/${encodeURIComponent(channelId)}/messages`, {
        body: { ...body, nonce: nonces[index], enforce_nonce: true, allowed_mentions: { parse: [] } },
        idempotent: true,
        ...(signal === undefined ? {} : { signal }),
      })
    }
  } catch (error) {
    memo.failed(key, nonces)
    throw error
  }
}

/**
 * A reply: its text, then one message with buttons per pending approval.
 * @param {Rest} rest
 * @param {NonceMemo} memo
 * @param {OutgoingMessage} message
 * @param {AbortSignal} [signal]
 */
export const sendReply = async (rest, memo, message, signal) => {
  const bodies = [
    ...(message.text.trim() === "" ? [] : toDiscordMessages(message.text).map((content) => ({ content }))),
    ...message.approvals.map(approvalMessage),
  ]
  const key = JSON.stringify([message.conversationId, message.text, message.approvals.map((a) => a.approvalId)])
  await post(rest, memo, message.conversationId, key, bodies, signal)
}

/**
 * The owner's DM channel (`POST /users/@me/channels`, which returns the existing one), cached.
 * @param {Rest} rest
 */
export const createDmChannels = (rest) => {
  /** @type {Map<string, string>} */
  const cache = new Map()
  /** @param {string} userId @param {AbortSignal} [signal] */
  return async (userId, signal) => {
    const known = cache.get(userId)
    if (known !== undefined) return known
    const channel = await rest.call("POST", "/users/@me/channels", {
      body: { recipient_id: userId },
      ...(signal === undefined ? {} : { signal }),
    })
    if (typeof channel?.id !== "string") throw new Error("discord: opening the owner's DM gave no channel")
    cache.set(userId, channel.id)
    return channel.id
  }
}

/**
 * A notification in the owner's DM: the subject in bold, then the body.
 * @param {Rest} rest
 * @param {NonceMemo} memo
 * @param {string} channelId
 * @param {Notification} notification
 * @param {AbortSignal} [signal]
 */
export const sendNotification = async (rest, memo, channelId, notification, signal) => {
  const subject = `**${notification.subject.replaceAll("*", "\\*").slice(0, 200)}**`
  const contents = toDiscordMessages(`${subject}\n\n${notification.body}`)
  const key = JSON.stringify(["notify", notification.subject, notification.body])
  await post(
    rest,
    memo,
    channelId,
    key,
    contents.map((content) => ({ content })),
    signal,
  )
}

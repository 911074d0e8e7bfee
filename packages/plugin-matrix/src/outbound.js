// @ts-check
/**
 * What goes out to Matrix: replies (`m.notice`, Markdown as HTML, split at `MESSAGE_LIMIT`),
 * approval messages the owner answers with a ✅ or ❌ reaction, and notifications in the owner's
 * DM room.
 *
 * No duplicate after a retry: every event is sent with `PUT …/send/{type}/{txnId}`, which the
 * homeserver makes idempotent per device (matrix-spec "Transaction identifiers"). A request is
 * retried with its transaction id; when a whole reply failed part way and Aide sends it again, the
 * same reply gets the same transaction ids back from the memo, so what went out is not sent twice.
 */
/** @import { Client } from "./client.js" */
/** @import { Notification, OutgoingMessage, PendingApproval } from "@aide/plugin" */
import { enc, MatrixError } from "./client.js"
import { escapeHtml, markdownToHtml, toMatrixContents } from "./format.js"

/** The key of the approval id in an approval message's content (custom keys are namespaced). */
export const APPROVAL_KEY = "org.aide.approval"
export const APPROVE = "✅"
export const DENY = "❌"
const INPUT_PREVIEW = 1500
/** How long a failed reply's transaction ids are kept for Aide's retry. */
const MEMO_MS = 5 * 60_000

/** A fresh transaction id (the spec suggests a random or timestamp-and-counter id). */
const freshTxnId = () =>
  `aide-${Date.now()}-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, "0")).join("")}`

/** @param {() => number} now */
export const createTxnMemo = (now = Date.now) => {
  /** @type {Map<string, { ids: string[], until: number }>} */
  const failed = new Map()
  return {
    /** @param {string} key @param {number} count */
    take: (key, count) => {
      for (const [other, entry] of failed) if (entry.until < now()) failed.delete(other)
      const previous = failed.get(key)
      failed.delete(key)
      return Array.from({ length: count }, (_, index) => previous?.ids[index] ?? freshTxnId())
    },
    /** @param {string} key @param {string[]} ids */
    failed: (key, ids) => {
      if (failed.size >= 256) failed.delete(failed.keys().next().value ?? "")
      failed.set(key, { ids, until: now() + MEMO_MS })
    },
  }
}

/** @typedef {ReturnType<typeof createTxnMemo>} TxnMemo */

/** @param {unknown} input */
const preview = (input) => {
  let json
  try {
    json = JSON.stringify(input, null, 2) ?? String(input)
  } catch {
    json = String(input)
  }
  return json.length > INPUT_PREVIEW ? `${json.slice(0, INPUT_PREVIEW)}…` : json
}

/**
 * The content of one approval message.
 * @param {PendingApproval} approval
 */
export const approvalContent = (approval) => {
  const input = preview(approval.input)
  const tool = approval.toolName.slice(0, 200)
  return {
    msgtype: "m.notice",
    body: `🔧 Approve tool call? ${tool}\n${input}\nReact ${APPROVE} to approve or ${DENY} to deny.`,
    format: "org.matrix.custom.html",
    formatted_body:
      `<p>🔧 <strong>Approve tool call?</strong> <code>${escapeHtml(tool)}</code></p>` +
      `<pre><code class="language-json">${escapeHtml(input)}</code></pre>` +
      `<p>React ${APPROVE} to approve or ${DENY} to deny.</p>`,
    [APPROVAL_KEY]: { id: approval.approvalId },
  }
}

/**
 * Sends events in order, each with its transaction id; remembers the ids when one fails.
 * @param {Client} client
 * @param {TxnMemo} memo
 * @param {string} roomId
 * @param {string} key what identifies this reply if it is sent again
 * @param {ReadonlyArray<{ type: string, content: Record<string, unknown> }>} events
 * @param {AbortSignal} [signal]
 * @returns {Promise<string[]>} the event ids
 */
const sendEvents = async (client, memo, roomId, key, events, signal) => {
  const ids = memo.take(key, events.length)
  /** @type {string[]} */
  const eventIds = []
  try {
    for (const [index, event] of events.entries()) {
      const path = `/rooms/${enc(roomId)}/send/${enc(event.type)}/${enc(ids[index] ?? "")}`
      try {
        const answer = await client.request("PUT", path, {
          body: event.content,
          idempotent: true,
          ...(signal === undefined ? {} : { signal }),
        })
        eventIds.push(String(answer?.event_id ?? ""))
      } catch (error) {
        // Our own ✅/❌ already there (a retry after a lost answer): nothing to add.
        if (!(error instanceof MatrixError && error.errcode === "M_DUPLICATE_ANNOTATION")) throw error
      }
    }
  } catch (error) {
    memo.failed(key, ids)
    throw error
  }
  return eventIds
}

/**
 * A reply: its text, then per pending approval a message and the bot's own ✅ and ❌ on it, so
 * the owner answers with one tap on either.
 * @param {Client} client
 * @param {TxnMemo} memo
 * @param {OutgoingMessage} message
 * @param {AbortSignal} [signal]
 */
export const sendReply = async (client, memo, message, signal) => {
  const texts = message.text.trim() === "" ? [] : toMatrixContents(message.text)
  const base = JSON.stringify([message.conversationId, message.text, message.approvals.map((a) => a.approvalId)])
  await sendEvents(
    client,
    memo,
    message.conversationId,
    base,
    texts.map((content) => ({ type: "m.room.message", content })),
    signal,
  )
  for (const approval of message.approvals) {
    const key = `${base}:${approval.approvalId}`
    const [eventId] = await sendEvents(
      client,
      memo,
      message.conversationId,
      key,
      [{ type: "m.room.message", content: approvalContent(approval) }],
      signal,
    )
    if (eventId === undefined || eventId === "") continue
    const reactions = [APPROVE, DENY].map((emoji) => ({
      type: "m.reaction",
      content: { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key: emoji } },
    }))
    await sendEvents(client, memo, message.conversationId, `${key}:reactions`, reactions, signal)
  }
}

/**
 * A notification: the subject as a heading, then the body.
 * @param {Client} client
 * @param {TxnMemo} memo
 * @param {string} roomId
 * @param {Notification} notification
 * @param {AbortSignal} [signal]
 */
export const sendNotification = async (client, memo, roomId, notification, signal) => {
  const [first, ...rest] = toMatrixContents(notification.body)
  const subject = notification.subject.slice(0, 300)
  const head = {
    msgtype: "m.notice",
    body: first === undefined ? subject : `${subject}\n\n${first.body}`,
    format: "org.matrix.custom.html",
    formatted_body: `<h3>${escapeHtml(subject)}</h3>${first === undefined ? "" : markdownToHtml(first.body)}`,
  }
  const key = JSON.stringify(["notify", roomId, notification.subject, notification.body])
  const events = [head, ...rest].map((content) => ({ type: "m.room.message", content }))
  await sendEvents(client, memo, roomId, key, events, signal)
}

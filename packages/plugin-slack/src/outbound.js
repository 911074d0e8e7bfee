// @ts-check
/**
 * What goes out to Slack: replies (`chat.postMessage` in the conversation's thread, mrkdwn, split
 * at MESSAGE_LIMIT), approve / deny buttons (Block Kit), notifications to the owner's DM.
 *
 * No duplicate after a retry: Slack's `chat.postMessage` has no idempotency key, so each message
 * carries a random marker in its `metadata`. A 429 or an `ok: false` proves nothing was posted
 * (retried / failed as such); when the outcome is unknown (no answer, a dropped connection, a
 * 5xx) the conversation's latest messages are read back and the marker looked for before posting
 * again. And when Aide calls `send` again for the same reply (it retries a failed send), the
 * chunks already posted are skipped.
 */
import { splitMessage } from "@aide/plugin"
import { SlackApiError, SlackUnknownOutcome, sleep } from "./api.js"
import { escapeMrkdwn, MESSAGE_LIMIT, markdownToMrkdwn } from "./format.js"
// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Api } from "./api.js" */
/** @import { Notification, OutgoingMessage, PendingApproval } from "@aide/plugin" */

export const APPROVE = "aide_approve"
export const DENY = "aide_deny"
/** The `event_type` of the metadata every message carries. */
export const METADATA_EVENT = "aide_message"
/** How much of a tool's input an approval message shows: escaped (at most 5 times longer), it stays under a section's 3,000. */
const INPUT_PREVIEW = 500
/** How long a reply's progress is remembered for Aide's retries of the same send (1 s, 2 s apart). */
const PROGRESS_TTL_MS = 60_000

/**
 * A conversation id: `<channel>` (a DM, answered at its top level) or `<channel>:<thread_ts>`
 * (a Slack thread: a DM's thread, or a channel thread started by a mention).
 * @param {string} conversationId
 */
export const conversationOf = (conversationId) => {
  const [channel = "", thread] = conversationId.split(":", 2)
  // Slack's ids: D… direct messages, C… channels, G… private channels and group DMs.
  return { channel, thread, group: !channel.startsWith("D") }
}

/**
 * A button's value: where the approval belongs and its id (Slack keeps it with the message, so
 * nothing is remembered here and a button works after a restart).
 * @param {string} conversationId
 * @param {string} approvalId
 */
const approvalValue = (conversationId, approvalId) => JSON.stringify({ c: conversationId, a: approvalId })

/**
 * @param {string} value
 * @returns {{ conversationId: string, approvalId: string } | null}
 */
export const resolveApproval = (value) => {
  try {
    const parsed = JSON.parse(value)
    return typeof parsed?.c === "string" && typeof parsed?.a === "string"
      ? { conversationId: parsed.c, approvalId: parsed.a }
      : null
  } catch {
    return null
  }
}

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
 * The text and blocks of one approval message.
 * @param {string} conversationId
 * @param {PendingApproval} approval
 */
export const approvalMessage = (conversationId, approval) => {
  const value = approvalValue(conversationId, approval.approvalId)
  if (value.length > 2000) throw new Error("slack: an approval id too long for a button's value (2,000)")
  const tool = escapeMrkdwn(approval.toolName)
  return {
    text: `Approve tool call? ${tool}`,
    blocks: [
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: `:wrench: *Approve tool call?* \`${tool}\`\n\`\`\`${escapeMrkdwn(preview(approval.input))}\`\`\``,
        },
      },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: "Approve" },
            style: "primary",
            action_id: APPROVE,
            value,
          },
          { type: "button", text: { type: "plain_text", text: "Deny" }, style: "danger", action_id: DENY, value },
        ],
      },
    ],
  }
}

/**
 * Whether a message with `marker` is among the conversation's messages since `oldest`.
 * @param {Api} api
 * @param {string} token
 * @param {{ channel: string, thread_ts?: string }} where
 * @param {string} marker
 * @param {string} oldest
 * @param {AbortSignal} signal
 */
const alreadyPosted = async (api, token, where, marker, oldest, signal) => {
  const args = { channel: where.channel, oldest, include_all_metadata: "true", limit: "100" }
  const answer =
    where.thread_ts === undefined
      ? await api.call("conversations.history", token, args, signal)
      : await api.call("conversations.replies", token, { ...args, ts: where.thread_ts }, signal)
  return (answer.messages ?? []).some((/** @type {any} */ message) => message?.metadata?.event_payload?.id === marker)
}

/**
 * Posts one message, exactly once as far as Slack lets us know (see the file's comment).
 * @param {Api} api
 * @param {string} token
 * @param {{ channel: string, thread_ts?: string, text: string, blocks?: unknown[] }} message
 * @param {AbortSignal} signal
 */
export const postOnce = async (api, token, message, signal) => {
  const marker = crypto.randomUUID()
  // A little before now, in Slack's ts format: the read-back window.
  const oldest = ((Date.now() - 60_000) / 1000).toFixed(6)
  const args = { ...message, metadata: { event_type: METADATA_EVENT, event_payload: { id: marker } } }
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.call("chat.postMessage", token, args, signal)
    } catch (error) {
      if (!(error instanceof SlackUnknownOutcome) || attempt >= 3) throw error
      // If the read-back fails too, we cannot know: give up rather than risk a duplicate.
      if (await alreadyPosted(api, token, message, marker, oldest, signal)) return undefined
      await sleep(500 * attempt, signal)
    }
  }
}

/** Chunks of recent sends already posted, by a digest of the reply: Aide's retries skip them. */
const progress = new Map()

/** @param {string} key */
const doneOf = (key) => {
  const now = Date.now()
  for (const [old, entry] of progress) if (now - entry.at > PROGRESS_TTL_MS) progress.delete(old)
  let entry = progress.get(key)
  if (entry === undefined) {
    entry = { at: now, done: new Set() }
    progress.set(key, entry)
  }
  return /** @type {{ at: number, done: Set<number> }} */ (entry)
}

/**
 * A reply: its text (mrkdwn, split), then one message with buttons per pending approval, all in
 * the conversation's thread.
 * @param {Api} api
 * @param {string} token
 * @param {OutgoingMessage} message
 * @param {AbortSignal} signal
 */
export const sendReply = async (api, token, message, signal) => {
  const { channel, thread } = conversationOf(message.conversationId)
  const where = thread === undefined ? { channel } : { channel, thread_ts: thread }
  /** @type {Array<{ text: string, blocks?: unknown[] }>} */
  const parts = []
  if (message.text.trim() !== "") {
    for (const text of splitMessage(markdownToMrkdwn(message.text), MESSAGE_LIMIT)) parts.push({ text })
  }
  for (const approval of message.approvals) parts.push(approvalMessage(message.conversationId, approval))
  // Keyed by the reply itself (kept a minute): the same reply sent again is the same key.
  const done = doneOf(JSON.stringify([message.conversationId, parts])).done
  for (const [index, part] of parts.entries()) {
    if (done.has(index)) continue
    await postOnce(api, token, { ...where, ...part }, signal)
    done.add(index)
  }
}

/**
 * The owner's DM channel (`conversations.open`), cached per workspace (bot token) and user.
 * @type {Map<string, string>}
 */
const dms = new Map() // by `<bot token digest>:<user>`

/**
 * A notification to the owner's DM: the subject in bold, then the body.
 * @param {Api} api
 * @param {string} token
 * @param {string | undefined} owner the Slack user id notifications go to
 * @param {Notification} notification
 * @param {AbortSignal} signal
 */
export const sendNotification = async (api, token, owner, notification, signal) => {
  if (owner === undefined) throw new Error("slack: notifications need an owner: put their user id first in allowFrom")
  const key = `${token}:${owner}`
  let channel = dms.get(key)
  if (channel === undefined) {
    const opened = await api.call("conversations.open", token, { users: owner }, signal)
    channel = String(opened.channel?.id ?? "")
    if (channel === "") throw new SlackApiError("conversations.open", "no channel in the answer")
    dms.set(key, channel)
  }
  const subject = `*${escapeMrkdwn(notification.subject)}*`
  const body = markdownToMrkdwn(notification.body)
  const chunks = splitMessage(body === "" ? subject : `${subject}\n\n${body}`, MESSAGE_LIMIT)
  for (const text of chunks) await postOnce(api, token, { channel, text }, signal)
}

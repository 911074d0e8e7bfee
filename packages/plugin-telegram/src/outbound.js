// @ts-check
/**
 * What goes out to Telegram: replies (with approve / deny buttons for pending tool calls) and
 * notifications to the owner.
 */
import { splitMessage } from "@aide/plugin"
import { escapeHtml, MESSAGE_LIMIT, markdownToHtml, toTelegramMessages } from "./format.js"

/** @typedef {import("@aide/plugin").PendingApproval} PendingApproval */
/** @typedef {import("grammy").Api} Api */

/**
 * Telegram's limit on `callback_data`, in bytes. `a:<approvalId>` / `d:<approvalId>` fit while the
 * id is at most 62 bytes (the AI SDK's ids are about 30); a longer id goes into the message text
 * instead (see `approvalIdOf`), which Telegram keeps: nothing to remember on our side, and a
 * button still works after a restart.
 */
export const CALLBACK_DATA_LIMIT = 64

/**
 * grammY's Node typings name the AbortSignal of the `abort-controller` polyfill; the platform's
 * own signal works the same at run time (grammY only listens to its `abort` event).
 * @param {AbortSignal | undefined} signal
 * @returns {any}
 */
export const grammySignal = (signal) => signal

/** The line that carries an approval id too long for the buttons. */
const ID_LINE = "Approval id: "

/** How much of a tool's input is shown on the approval message. */
const INPUT_PREVIEW = 1000

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

/** @param {string} text */
const bytes = (text) => new TextEncoder().encode(text).length

/**
 * The text and buttons of one approval message.
 * @param {PendingApproval} approval
 */
export const approvalMessage = (approval) => {
  const fits = bytes(`a:${approval.approvalId}`) <= CALLBACK_DATA_LIMIT
  const lines = [
    `🔧 <b>Approve tool call?</b> <code>${escapeHtml(approval.toolName)}</code>`,
    `<pre>${escapeHtml(preview(approval.input))}</pre>`,
  ]
  if (!fits) lines.push(`${ID_LINE}<code>${escapeHtml(approval.approvalId)}</code>`)
  return {
    text: lines.join("\n"),
    reply_markup: {
      inline_keyboard: [
        [
          { text: "✅ Approve", callback_data: fits ? `a:${approval.approvalId}` : "a" },
          { text: "❌ Deny", callback_data: fits ? `d:${approval.approvalId}` : "d" },
        ],
      ],
    },
  }
}

/**
 * Reads a button press: the decision and the approval id (from the data, or from the text of the
 * message the button belongs to). Null for data this channel did not make.
 * @param {string} data
 * @param {string | undefined} messageText the plain text of the message with the buttons
 * @returns {{ approved: boolean, approvalId: string } | null}
 */
export const approvalIdOf = (data, messageText) => {
  const match = /^([ad])(?::(.+))?$/s.exec(data)
  if (match === null) return null
  const approved = match[1] === "a"
  if (match[2] !== undefined) return { approved, approvalId: match[2] }
  const line = (messageText ?? "").split("\n").find((candidate) => candidate.startsWith(ID_LINE))
  return line === undefined ? null : { approved, approvalId: line.slice(ID_LINE.length).trim() }
}

/**
 * Sends Markdown as one or more HTML messages.
 * @param {Api} api
 * @param {string | number} chatId
 * @param {string} markdown
 * @param {AbortSignal} [signal]
 */
export const sendMarkdown = async (api, chatId, markdown, signal) => {
  for (const html of toTelegramMessages(markdown)) {
    await api.sendMessage(
      chatId,
      html,
      { parse_mode: "HTML", link_preview_options: { is_disabled: true } },
      grammySignal(signal),
    )
  }
}

/**
 * A reply: its text, then one message with buttons per pending approval.
 * @param {Api} api
 * @param {import("@aide/plugin").OutgoingMessage} message
 * @param {AbortSignal} [signal]
 */
export const sendReply = async (api, message, signal) => {
  if (message.text.trim() !== "") await sendMarkdown(api, message.conversationId, message.text, signal)
  for (const approval of message.approvals) {
    const { text, reply_markup } = approvalMessage(approval)
    await api.sendMessage(message.conversationId, text, { parse_mode: "HTML", reply_markup }, grammySignal(signal))
  }
}

/**
 * A notification to the owner's chat: the subject in bold, then the body.
 * @param {Api} api
 * @param {string} ownerId
 * @param {import("@aide/plugin").Notification} notification
 * @param {AbortSignal} [signal]
 */
export const sendNotification = async (api, ownerId, notification, signal) => {
  const subject = `<b>${escapeHtml(notification.subject)}</b>`
  // The subject shares the first message with the body: leave it room.
  const limit = Math.max(MESSAGE_LIMIT - notification.subject.length - 2, 1024)
  const [first, ...rest] = splitMessage(notification.body, limit).map(markdownToHtml)
  await api.sendMessage(
    ownerId,
    first === undefined ? subject : `${subject}\n\n${first}`,
    { parse_mode: "HTML" },
    grammySignal(signal),
  )
  for (const html of rest) await api.sendMessage(ownerId, html, { parse_mode: "HTML" }, grammySignal(signal))
}

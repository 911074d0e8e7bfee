// @ts-check
/**
 * What goes out to WhatsApp through `/{phone-number-id}/messages`: replies (text split at 4,096),
 * approvals as interactive reply buttons, notifications to the owner — free-form inside the
 * 24-hour customer-service window, else the configured template, else a clear error.
 *
 * No duplicate after a retry: the Cloud API has no idempotency key and no way to read sent
 * messages back, so a message is sent again only when Meta answered that it was not sent (a rate
 * limit). When the outcome is unknown the send fails without retrying, and when Aide calls `send`
 * again for that reply, the messages already out — and the one whose fate is unknown — are
 * skipped (logged): a missing chunk is preferred to a duplicated one.
 */
import { splitMessage } from "@aide/plugin"
import { MESSAGE_LIMIT, markdownToWhatsApp } from "./format.js"
import { GraphError, GraphUnknownOutcome } from "./graph.js"
// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Graph } from "./graph.js" */
/** @import { Settings } from "./settings.js" */
/** @import { ChannelContext, Notification, OutgoingMessage, PendingApproval } from "@aide/plugin" */

/** The window in which free-form messages may be sent after the user's last message. */
export const WINDOW_MS = 24 * 60 * 60 * 1000
/** Meta's code for a free-form message outside the window ("re-engagement message"). */
export const OUTSIDE_WINDOW = 131047
const PROGRESS_TTL_MS = 60_000
/** An interactive message's body limit, and a button title's. */
const BODY_LIMIT = 1024
const INPUT_PREVIEW = 700

/**
 * A button id: `a:<approvalId>` / `d:<approvalId>` (at most 256 characters).
 * @param {string} id
 * @returns {{ approvalId: string, approved: boolean } | null}
 */
export const approvalOf = (id) => {
  const match = /^([ad]):(.+)$/s.exec(id)
  return match === null ? null : { approvalId: match[2] ?? "", approved: match[1] === "a" }
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
 * The interactive message of one approval: the tool and its input, two reply buttons.
 * @param {string} to
 * @param {PendingApproval} approval
 */
export const approvalMessage = (to, approval) => {
  if (approval.approvalId.length > 250) throw new Error("whatsapp: an approval id too long for a button (256)")
  const body = `🔧 *Approve tool call?* \`${approval.toolName}\`\n\`\`\`${preview(approval.input)}\`\`\``
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to,
    type: "interactive",
    interactive: {
      type: "button",
      body: { text: body.length > BODY_LIMIT ? `${body.slice(0, BODY_LIMIT - 4)}…\`\`\`` : body },
      action: {
        buttons: [
          { type: "reply", reply: { id: `a:${approval.approvalId}`, title: "Approve" } },
          { type: "reply", reply: { id: `d:${approval.approvalId}`, title: "Deny" } },
        ],
      },
    },
  }
}

/** @param {string} to @param {string} body */
const textMessage = (to, body) => ({
  messaging_product: "whatsapp",
  recipient_type: "individual",
  to,
  type: "text",
  text: { preview_url: false, body },
})

/** Messages of recent sends already out (or of unknown fate), by a digest of the reply. */
const progress = new Map()

/** @param {string} key */
const doneOf = (key) => {
  const now = Date.now()
  for (const [old, entry] of progress) if (now - entry.at > PROGRESS_TTL_MS) progress.delete(old)
  if (!progress.has(key)) progress.set(key, { at: now, done: new Set() })
  return /** @type {Set<number>} */ (progress.get(key).done)
}

/**
 * Sends messages in order, each once (see the file's comment).
 * @param {Graph} graph
 * @param {string} phoneNumberId
 * @param {Array<Record<string, unknown>>} messages
 * @param {ChannelContext} context
 */
const sendAll = async (graph, phoneNumberId, messages, context) => {
  const done = doneOf(JSON.stringify(messages))
  for (const [index, message] of messages.entries()) {
    if (done.has(index)) continue
    try {
      await graph.call("POST", `${phoneNumberId}/messages`, message, context.signal)
      done.add(index)
    } catch (error) {
      if (error instanceof GraphUnknownOutcome) {
        done.add(index)
        context.log("whatsapp: a message's fate is unknown; it is not sent again", { index })
      }
      throw error
    }
  }
}

/**
 * @param {Graph} graph
 * @param {Settings} settings
 * @param {OutgoingMessage} message
 * @param {ChannelContext} context
 */
export const sendReply = async (graph, settings, message, context) => {
  const to = message.conversationId
  /** @type {Array<Record<string, unknown>>} */
  const messages = []
  if (message.text.trim() !== "") {
    for (const body of splitMessage(markdownToWhatsApp(message.text), MESSAGE_LIMIT))
      messages.push(textMessage(to, body))
  }
  for (const approval of message.approvals) messages.push(approvalMessage(to, approval))
  await sendAll(graph, settings.phoneNumberId, messages, context)
}

/**
 * A notification to the owner (the first of `allowFrom`): subject in bold, then the body, while
 * the window is open; outside it (known from their last message, or Meta's 131047), the
 * template `notifyTemplate` with the subject as its one body parameter, or a clear error.
 * @param {Graph} graph
 * @param {Settings} settings
 * @param {Map<string, number>} lastInbound
 * @param {Notification} notification
 * @param {ChannelContext} context
 */
export const sendNotification = async (graph, settings, lastInbound, notification, context) => {
  const owner = settings.allowFrom[0]
  if (owner === undefined) throw new Error("whatsapp: notifications need an owner: put their number first in allowFrom")
  const to = owner.slice(1)
  const last = lastInbound.get(to)
  const outside = last !== undefined && Date.now() - last > WINDOW_MS
  if (!outside) {
    const body = markdownToWhatsApp(notification.body)
    const text = `*${notification.subject}*${body === "" ? "" : `\n\n${body}`}`
    try {
      await sendAll(
        graph,
        settings.phoneNumberId,
        splitMessage(text, MESSAGE_LIMIT).map((chunk) => textMessage(to, chunk)),
        context,
      )
      return
    } catch (error) {
      if (!(error instanceof GraphError && error.code === OUTSIDE_WINDOW)) throw error
    }
  }
  if (settings.notifyTemplate === "") {
    const reason =
      "whatsapp: the owner has not written in the last 24 hours, so WhatsApp only accepts a template: set notifyTemplate to an approved template"
    context.log(reason)
    throw new Error(reason)
  }
  await sendAll(
    graph,
    settings.phoneNumberId,
    [
      {
        messaging_product: "whatsapp",
        to,
        type: "template",
        template: {
          name: settings.notifyTemplate,
          language: { code: settings.templateLanguage },
          components: [{ type: "body", parameters: [{ type: "text", text: notification.subject.slice(0, 1000) }] }],
        },
      },
    ],
    context,
  )
}

// @ts-check
/**
 * What goes out by SMTP: replies (threaded with `In-Reply-To` and `References`, `Re:` subject,
 * plain text and HTML, pending approvals with the lines to answer them) and notifications to
 * the owner's first address. Every mail is marked `Auto-Submitted` (RFC 3834), so the owner's
 * own autoresponder never answers the assistant.
 *
 * Idempotent: a reply's Message-ID is a hash of what it is (conversation, the mail it answers,
 * its text and approvals), and its headers are fixed at the first attempt and kept until one
 * succeeds (15 minutes at most), so when Aide retries a send that failed half-way (the server
 * took the data, the connection dropped before its "250"), the second copy is the same message
 * and mail clients show it once, even if the owner wrote again in between. A notification has no such identity: its Message-ID is kept for
 * 15 minutes per content, which covers Aide's delivery retries without merging two identical
 * notifications sent hours apart.
 */
import { createHash, randomUUID } from "node:crypto"
import nodemailer from "nodemailer"
import { escapeHtml, htmlDocument, markdownToHtml } from "./format.js"
import { referencesFor, replySubject } from "./threads.js"

/** @typedef {import("./settings.js").Settings} Settings */
/** @typedef {import("./threads.js").Threads} Threads */
/** @typedef {import("@aide/plugin").OutgoingMessage} OutgoingMessage */
/** @typedef {import("@aide/plugin").Notification} Notification */
/** @typedef {import("@aide/plugin").PendingApproval} PendingApproval */

/** How long a notification keeps its Message-ID for retries. */
export const NOTIFICATION_ID_TTL_MS = 15 * 60 * 1000
/** How much of a tool's input is shown with an approval. */
const INPUT_PREVIEW = 2000
/** A reply longer than this is cut (mail has no hard limit; this keeps a runaway answer sane). */
export const MAX_TEXT = 500_000

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
const fence = (text) => {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  return "`".repeat(longest + 1)
}

/**
 * An approval as Markdown. The lines to send back are written inside a sentence, so a reply
 * that quotes this mail without `>` (some clients do) never answers by accident: only a line
 * that is exactly `APPROVE <id>` or `DENY <id>` counts.
 * @param {PendingApproval} approval
 */
export const approvalMarkdown = (approval) => {
  const input = preview(approval.input)
  const marks = fence(input)
  return [
    `🔧 **Approve tool call?** \`${approval.toolName.replace(/`/g, "'")}\``,
    "",
    `${marks}json`,
    input,
    marks,
    "",
    `To approve, reply with the line: APPROVE ${approval.approvalId}`,
    `To deny, reply with the line: DENY ${approval.approvalId}`,
  ].join("\n")
}

/**
 * The same approval as HTML, with `mailto:` links that open a reply already holding the line.
 * Links to an HTTP endpoint would be followed by mail scanners (and approve the call); a
 * `mailto:` link does nothing until the owner sends the mail.
 * @param {PendingApproval} approval
 * @param {string} to the assistant's address
 * @param {string} subject
 */
const approvalHtml = (approval, to, subject) => {
  const link = (/** @type {string} */ word) =>
    `mailto:${encodeURIComponent(to)}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(`${word} ${approval.approvalId}`)}`
  return `${markdownToHtml(approvalMarkdown(approval))}\n<p><a href="${escapeHtml(link("APPROVE"))}">✅ Approve</a> &nbsp; <a href="${escapeHtml(link("DENY"))}">❌ Deny</a></p>`
}

/** @param {string} address */
const domainOf = (address) => address.slice(address.lastIndexOf("@") + 1) || "aide.invalid"

/** @param {string[]} parts */
const digest = (parts) => createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32)

/**
 * @param {Settings} settings
 * @param {Threads} threads
 * @param {(conversationId: string) => string | null} addressOf the sender a conversation is with
 */
export const makeOutbound = (settings, threads, addressOf) => {
  const transport = nodemailer.createTransport({
    // One connection kept open between sends (a new one costs a TLS handshake and AUTH, ~100 ms
    // on loopback); the pool opens a new one when the server has closed it.
    pool: true,
    maxConnections: 1,
    host: settings.smtp.host,
    port: settings.smtp.port,
    secure: settings.smtp.tls === "tls",
    requireTLS: settings.smtp.tls === "starttls",
    auth: { user: settings.username, pass: settings.password },
    tls: { rejectUnauthorized: !settings.allowSelfSigned },
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  })
  const from = { name: settings.fromName, address: settings.fromAddress }
  const domain = domainOf(settings.fromAddress)
  /** @type {Map<string, { id: string, until: number }>} */
  const notificationIds = new Map()
  /** @type {Map<string, ReturnType<typeof threadHeaders> & { until: number }>} replies not sent yet, by content */
  const unsent = new Map()

  /**
   * How a reply threads, from what is known of the conversation now. After a restart nothing is
   * known: the conversation id holds the thread's root Message-ID, which the reply answers. The
   * Message-ID is a hash of all of it, so even a retry across a restart is the same mail.
   * @param {string} conversationId
   * @param {string} text
   * @param {string[]} approvalIds
   */
  const threadHeaders = (conversationId, text, approvalIds) => {
    const known = threads.get(conversationId)
    const root = conversationId.split(" ")[1] ?? ""
    const parent = known?.parent ?? (/^<[^<>\s]+>$/.test(root) ? root : null)
    return {
      parent,
      references: parent === null ? [] : referencesFor(known?.references ?? [], parent),
      subject: replySubject(known?.subject ?? ""),
      messageId: `<aide.${digest([conversationId, parent ?? "", text, ...approvalIds])}@${domain}>`,
    }
  }

  /** @type {WeakSet<AbortSignal>} */
  const watched = new WeakSet()
  /**
   * The pooled connection goes when the channel stops (its signal aborts): the plugin API has no
   * other end-of-life hook for a channel.
   * @param {AbortSignal | undefined} signal
   */
  const closeOnStop = (signal) => {
    if (signal === undefined || watched.has(signal)) return
    watched.add(signal)
    signal.addEventListener("abort", () => transport.close(), { once: true })
  }

  /**
   * @param {OutgoingMessage} message
   * @param {AbortSignal} [signal]
   */
  const sendReply = async (message, signal) => {
    signal?.throwIfAborted()
    closeOnStop(signal)
    const to = addressOf(message.conversationId) ?? settings.allowFrom[0]
    if (to === undefined) throw new Error("email: no address to reply to (set allowFrom)")
    const approvalIds = message.approvals.map((approval) => approval.approvalId)
    // A retry is the same mail: its headers were fixed at the first attempt (the thread may have
    // moved on since, with the owner's next mail), until one attempt succeeds.
    const key = digest([message.conversationId, message.text, ...approvalIds])
    const now = Date.now()
    for (const [entry, value] of unsent) if (value.until < now) unsent.delete(entry)
    const headers = unsent.get(key) ?? threadHeaders(message.conversationId, message.text, approvalIds)
    unsent.set(key, { ...headers, until: now + NOTIFICATION_ID_TTL_MS })
    const { parent, references, subject, messageId } = headers
    const text = message.text.length > MAX_TEXT ? `${message.text.slice(0, MAX_TEXT)}\n\n[…cut]` : message.text
    const markdown = [text, ...message.approvals.map(approvalMarkdown)]
      .filter((part) => part.trim() !== "")
      .join("\n\n---\n\n")
    const html = [
      text.trim() === "" ? "" : markdownToHtml(text),
      ...message.approvals.map((approval) => approvalHtml(approval, settings.fromAddress, subject)),
    ]
      .filter((part) => part !== "")
      .join("\n<hr>\n")
    threads.addOwn(messageId, message.conversationId)
    for (const approvalId of approvalIds) threads.addApproval(approvalId, message.conversationId)
    const known = threads.get(message.conversationId)
    if (known !== undefined) threads.set(message.conversationId, { ...known, approvals: approvalIds })
    await transport.sendMail({
      from,
      to,
      subject,
      text: markdown,
      html: htmlDocument(html),
      messageId,
      ...(parent === null ? {} : { inReplyTo: parent, references }),
      headers: { "Auto-Submitted": "auto-replied" },
    })
    unsent.delete(key)
  }

  /**
   * @param {Notification} notification
   * @param {AbortSignal} [signal]
   */
  const sendNotification = async (notification, signal) => {
    signal?.throwIfAborted()
    closeOnStop(signal)
    const to = settings.allowFrom[0]
    if (to === undefined) throw new Error("email: notifications go to the first allowFrom address: set allowFrom")
    const now = Date.now()
    const key = digest([notification.subject, notification.body, notification.threadId ?? ""])
    for (const [entry, value] of notificationIds) if (value.until < now) notificationIds.delete(entry)
    const messageId = notificationIds.get(key)?.id ?? `<aide.${randomUUID()}@${domain}>`
    notificationIds.set(key, { id: messageId, until: now + NOTIFICATION_ID_TTL_MS })
    // A reply to a notification starts a conversation rooted at it.
    const conversationId = `${to} ${messageId}`
    threads.addOwn(messageId, conversationId)
    threads.set(conversationId, { subject: notification.subject, parent: messageId, references: [], approvals: [] })
    await transport.sendMail({
      from,
      to,
      subject: notification.subject,
      text: notification.body,
      html: htmlDocument(markdownToHtml(notification.body)),
      messageId,
      headers: { "Auto-Submitted": "auto-generated" },
    })
  }

  return { sendReply, sendNotification, close: () => transport.close() }
}

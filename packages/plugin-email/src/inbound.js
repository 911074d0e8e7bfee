// @ts-check
/**
 * What a parsed mail means to the assistant: whether a machine sent it (bounces, auto-replies,
 * lists: never answered, so no two robots can mail each other forever), who sent it, which
 * conversation it belongs to, its new text (the quoted history cut off), the approvals it
 * answers, and its attachments as files (size-bounded).
 */
import { createHash } from "node:crypto"
import { convert } from "html-to-text"

/** @typedef {import("mailparser").ParsedMail} ParsedMail */
/** @typedef {import("@aide/plugin").InboundFile} InboundFile */

/** One attachment larger than this is not passed on (the text says so). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024
/** Nor are attachments past this total, or past this count. */
export const MAX_TOTAL_BYTES = 25 * 1024 * 1024
export const MAX_FILES = 10
/** A root Message-ID longer than this is hashed in the conversation id (ids are kept in a table). */
const MAX_ROOT_ID = 200

/**
 * A header's raw value (the first one, unfolded, lower-cased), or "". Raw lines, because
 * mailparser reshapes some headers (List-* become one "list" object).
 * @param {ParsedMail} mail
 * @param {string} name
 */
const header = (mail, name) => {
  const line = mail.headerLines.find((entry) => entry.key === name)?.line ?? ""
  return line
    .slice(line.indexOf(":") + 1)
    .replace(/\r?\n[ \t]+/g, " ")
    .trim()
    .toLowerCase()
}

/** @param {ParsedMail} mail */
export const senderOf = (mail) => {
  const from = mail.from?.value[0]
  const address = from?.address?.trim().toLowerCase() ?? ""
  if (address === "") return null
  const name = from?.name?.trim() ?? ""
  return name === "" ? { id: address } : { id: address, name }
}

/**
 * Why this mail must not be answered, or null. RFC 3834 says an automatic responder must not
 * answer `Auto-Submitted` mail (other than `no`), bounces (null return path, MAILER-DAEMON,
 * delivery reports) nor list traffic; the assistant is such a responder.
 * @param {ParsedMail} mail
 * @param {{ ownAddress: string, isOwnMessageId: (id: string) => boolean }} self
 * @returns {string | null}
 */
export const automatedReason = (mail, self) => {
  const auto = header(mail, "auto-submitted")
  if (auto !== "" && !auto.startsWith("no")) return `Auto-Submitted: ${auto}`
  const precedence = header(mail, "precedence")
  if (/^(bulk|junk|list|auto_reply)/.test(precedence)) return `Precedence: ${precedence}`
  if (header(mail, "x-autoreply") !== "" || header(mail, "x-autorespond") !== "") return "an auto-reply header"
  if (header(mail, "list-id") !== "" || header(mail, "list-unsubscribe") !== "") return "a mailing list"
  // The top Return-Path is the one the receiving server wrote from the envelope: "<>" is a bounce.
  if (/^<\s*>$/.test(header(mail, "return-path"))) return "a null return path (a bounce)"
  if (/^multipart\/report/.test(header(mail, "content-type"))) return "a delivery report"
  const sender = senderOf(mail)
  if (sender === null) return "no From address"
  const local = sender.id.split("@")[0] ?? ""
  if (/^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?)$/.test(local)) return `From ${local}`
  if (sender.id === self.ownAddress) return "mail from the assistant's own address"
  if (mail.messageId !== undefined && self.isOwnMessageId(mail.messageId)) return "the assistant's own message"
  return null
}

/**
 * Why the From cannot be trusted, or null. From is whatever the sender wrote: the receiving
 * server's verdict is the topmost `Authentication-Results` (RFC 8601; lower ones may be the
 * sender's own). A DMARC failure is always refused; with `required`, so is mail that no check
 * (DMARC, DKIM or SPF) passed, or that carries no verdict at all.
 * @param {ParsedMail} mail
 * @param {boolean} required
 * @returns {string | null}
 */
export const unauthenticatedReason = (mail, required) => {
  const results = header(mail, "authentication-results")
  const verdict = (/** @type {string} */ method) => new RegExp(`\\b${method}=(\\w+)`).exec(results)?.[1] ?? null
  if (verdict("dmarc") === "fail") return "DMARC failed"
  if (!required) return null
  if (results === "") return "no Authentication-Results from the receiving server"
  if ([verdict("dmarc"), verdict("dkim"), verdict("spf")].includes("pass")) return null
  return "neither DMARC, DKIM nor SPF passed"
}

/** @param {ParsedMail} mail */
const referencesOf = (mail) => {
  const refs = mail.references
  if (refs === undefined) return []
  return (Array.isArray(refs) ? refs : [refs]).flatMap((ref) => ref.split(/\s+/)).filter((ref) => ref !== "")
}

/**
 * The thread a mail belongs to, as the ids that name it: its root (the first of `References`,
 * else `In-Reply-To`, else its own `Message-ID`), and its parent.
 * @param {ParsedMail} mail
 */
export const threadOf = (mail) => {
  const references = referencesOf(mail)
  const inReplyTo = mail.inReplyTo?.split(/\s+/)[0]
  const messageId = mail.messageId ?? syntheticId(mail)
  const root = references[0] ?? inReplyTo ?? messageId
  return { root, parent: inReplyTo ?? references.at(-1) ?? null, messageId, references }
}

/**
 * A stable id for a mail without a Message-ID (RFC 5322 makes it optional): its From, Date and
 * Subject, so the same mail read twice gets the same conversation.
 * @param {ParsedMail} mail
 */
const syntheticId = (mail) => {
  const seed = `${senderOf(mail)?.id ?? ""}\n${mail.date?.toISOString() ?? ""}\n${mail.subject ?? ""}`
  return `<${createHash("sha256").update(seed).digest("hex").slice(0, 32)}@aide.invalid>`
}

/** @param {string} id */
export const rootKeyOf = (id) =>
  id.length <= MAX_ROOT_ID ? id : `sha256:${createHash("sha256").update(id).digest("hex")}`

/** Lines that start the quoted history in the usual clients (Gmail, Apple Mail, Outlook, Thunderbird). */
const HISTORY = [
  /^On .{1,300}wrote:\s*$/, // Gmail, Apple Mail, Thunderbird
  /^Le .{1,300}a écrit\s*:\s*$/,
  /^Am .{1,300}schrieb .{0,300}:\s*$/,
  /^-{2,}\s*Original Message\s*-{2,}\s*$/i, // Outlook
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^_{10,}\s*$/, // Outlook's rule before "From:"
]

/** Outlook without a rule: a "From:" line followed by the other header lines of the quoted mail. */
const outlookHeader = (/** @type {string[]} */ lines, /** @type {number} */ index) =>
  /^From:\s.+$/.test((lines[index] ?? "").trim()) &&
  lines.slice(index + 1, index + 4).some((line) => /^(Sent|Date|To|Subject):\s/.test(line.trim()))

/**
 * The new text of a reply: everything before the quoted history and the signature. Quoted lines
 * (`>`) are dropped wherever they are, so an interleaved reply keeps its own lines.
 * @param {string} text
 */
export const newTextOf = (text) => {
  const lines = text.replace(/\r\n?/g, "\n").split("\n")
  /** @type {string[]} */
  const kept = []
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? ""
    if (line === "-- " || line === "--") break // the signature delimiter
    if (HISTORY.some((pattern) => pattern.test(line.trim())) || outlookHeader(lines, index)) break
    // Gmail wraps a long "On … wrote:" over two lines.
    if (/^On .{1,300}$/.test(line.trim()) && /wrote:\s*$/.test((lines[index + 1] ?? "").trim())) break
    if (/^\s*>/.test(line)) continue
    kept.push(line)
  }
  return kept.join("\n").trim()
}

const COMMAND = /^\s*(approve|deny)(?:\s+([A-Za-z0-9][A-Za-z0-9._:-]{0,199}))?\s*[.!]?\s*$/i

/**
 * The approval answers in a reply's new text: lines `APPROVE <id>` / `DENY <id>` (any case; a bare
 * `APPROVE` names the only approval pending in the thread), and the rest of the text.
 * @param {string} text
 * @returns {{ answers: Array<{ approvalId: string | null, approved: boolean }>, rest: string }}
 */
export const approvalCommandsOf = (text) => {
  /** @type {Array<{ approvalId: string | null, approved: boolean }>} */
  const answers = []
  const rest = text
    .split("\n")
    .filter((line) => {
      const match = COMMAND.exec(line)
      if (match === null) return true
      answers.push({ approvalId: match[2] ?? null, approved: match[1]?.toLowerCase() === "approve" })
      return false
    })
    .join("\n")
    .trim()
  return { answers, rest }
}

/** HTML longer than this is not converted (the conversion's cost grows with it). */
const MAX_HTML = 2 * 1024 * 1024

/**
 * The mail's text: its text/plain part, else its HTML as text (mailparser converts HTML only when
 * it is the root or an alternative, not a lone HTML part of a multipart/mixed).
 * @param {ParsedMail} mail
 */
export const textOf = (mail) => {
  if (typeof mail.text === "string" && mail.text.trim() !== "") return mail.text
  if (typeof mail.html === "string" && mail.html.length <= MAX_HTML) {
    return convert(mail.html, { wordwrap: false, selectors: [{ selector: "a", options: { ignoreHref: true } }] })
  }
  return ""
}

/** @param {number} bytes */
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/**
 * The mail's attachments as files, within the bounds; what was left out is described in `notes`.
 * Inline parts referenced from the HTML (`related`: signature logos and the like) are skipped.
 * @param {ParsedMail} mail
 */
export const filesOf = (mail) => {
  /** @type {InboundFile[]} */
  const files = []
  /** @type {string[]} */
  const notes = []
  let total = 0
  for (const attachment of mail.attachments) {
    if (attachment.related === true) continue
    const name = attachment.filename ?? "attachment"
    const size = attachment.content.length
    if (files.length >= MAX_FILES) notes.push(`"${name}" was not passed on: more than ${MAX_FILES} attachments`)
    else if (size > MAX_FILE_BYTES) {
      notes.push(`"${name}" (${mib(size)}) was not passed on: the limit is ${mib(MAX_FILE_BYTES)} per file`)
    } else if (total + size > MAX_TOTAL_BYTES) {
      notes.push(`"${name}" (${mib(size)}) was not passed on: the limit is ${mib(MAX_TOTAL_BYTES)} per mail`)
    } else {
      total += size
      const mediaType = attachment.contentType || "application/octet-stream"
      const url = `data:${mediaType};base64,${attachment.content.toString("base64")}`
      files.push(
        attachment.filename === undefined ? { mediaType, url } : { mediaType, url, filename: attachment.filename },
      )
    }
  }
  return { files, notes }
}

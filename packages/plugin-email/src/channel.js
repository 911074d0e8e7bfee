// @ts-check
/**
 * The e-mail channel: a function of the plugin's settings (the loader calls it with
 * `{ config, env }`) returning a realtime channel (the IMAP mailbox) that replies and notifies by
 * SMTP. Who may talk is Aide's decision (`allowFrom`, `pairing`): every mail written by a person
 * is passed on with its From address as the sender; mail written by machines is dropped here.
 */
import {
  approvalCommandsOf,
  automatedReason,
  filesOf,
  newTextOf,
  rootKeyOf,
  senderOf,
  textOf,
  threadOf,
  unauthenticatedReason,
} from "./inbound.js"
import { makeCursor, runMailbox } from "./mailbox.js"
import { makeOutbound } from "./outbound.js"
import { settingsOf } from "./settings.js"
import { makeThreads } from "./threads.js"

/** @typedef {import("@aide/plugin").ChannelContext} ChannelContext */
/** @typedef {import("@aide/plugin").ChannelDefinition} ChannelDefinition */
/** @typedef {import("mailparser").ParsedMail} ParsedMail */

export { settingsOf }

/**
 * A conversation is one e-mail thread of one sender: `<address> <root Message-ID>`. With the
 * sender in it, a stranger who forges a reference to the owner's thread lands in a conversation
 * of their own (which Aide refuses), never in the owner's; and the address a reply goes to can
 * be read back from the id after a restart.
 * @param {string} address
 * @param {string} root
 */
export const conversationOf = (address, root) => `${address} ${rootKeyOf(root)}`

/** @param {string} conversationId */
export const addressOfConversation = (conversationId) => {
  const address = conversationId.split(" ")[0] ?? ""
  return address.includes("@") ? address : null
}

/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error))

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const email = ({ config, env }) => {
  const settings = settingsOf(config, env)
  const threads = makeThreads()
  const cursor = makeCursor()
  const outbound = makeOutbound(settings, threads, addressOfConversation)

  /**
   * @param {ChannelContext} context
   * @param {ParsedMail} mail
   * @param {string | null} note
   * @returns {Promise<"done" | "retry">}
   */
  const onMail = async (context, mail, note) => {
    const reason = automatedReason(mail, { ownAddress: settings.fromAddress, isOwnMessageId: threads.isOwn })
    if (reason !== null) {
      context.log("email: ignored a mail sent by a machine", { reason })
      return "done"
    }
    const forged = unauthenticatedReason(mail, settings.requireAuthenticated)
    if (forged !== null) {
      context.log("email: ignored a mail whose From is not vouched for", { reason: forged, from: senderOf(mail)?.id })
      return "done"
    }
    const sender = /** @type {{ id: string, name?: string }} */ (senderOf(mail))
    const thread = threadOf(mail)
    // A client that dropped References still names our mail as its parent.
    const ownParent = thread.parent === null ? undefined : threads.conversationOfOwn(thread.parent)
    const conversationId =
      ownParent !== undefined && addressOfConversation(ownParent) === sender.id
        ? ownParent
        : conversationOf(sender.id, thread.root)
    const previous = threads.get(conversationId)
    threads.set(conversationId, {
      subject: mail.subject ?? previous?.subject ?? "",
      parent: thread.messageId,
      references: thread.references,
      approvals: previous?.approvals ?? [],
    })

    const { answers, rest } = approvalCommandsOf(newTextOf(textOf(mail)))
    for (const answer of answers) {
      const pending = previous?.approvals ?? []
      const approvalId = answer.approvalId ?? (pending.length === 1 ? pending[0] : undefined)
      if (approvalId === undefined) {
        context.log("email: an APPROVE / DENY without an id, and not exactly one approval pending in the thread")
        continue
      }
      const offeredIn = threads.conversationOfApproval(approvalId)
      const target =
        offeredIn !== undefined && addressOfConversation(offeredIn) === sender.id ? offeredIn : conversationId
      const decision = { conversationId: target, approvalId, approved: answer.approved, sender }
      try {
        await context.answerApproval(decision)
      } catch (error) {
        context.log("email: the approval answer was refused", { error: messageOf(error) })
      }
    }

    const { files, notes } = filesOf(mail)
    // A new mail with an empty body says what it wants in its subject.
    const body = rest === "" && answers.length === 0 && thread.parent === null ? (mail.subject ?? "").trim() : rest
    const text = [body, ...notes.map((line) => `[${line}]`), ...(note === null ? [] : [`[${note}]`])]
      .filter((part) => part !== "")
      .join("\n\n")
    if (text === "" && files.length === 0) return "done"
    try {
      await context.receive({ conversationId, text, ...(files.length > 0 ? { files } : {}), sender })
    } catch (error) {
      const message = messageOf(error)
      // The conversation has 16 things waiting: read this mail again on the next scan.
      if (/busy/i.test(message)) return "retry"
      context.log("email: a mail was refused", { error: message })
    }
    return "done"
  }

  return {
    id: "email",
    name: "E-mail",
    realtime: {
      start: (context) => runMailbox(settings, cursor, (mail, note) => onMail(context, mail, note), context),
    },
    send: (message, context) => outbound.sendReply(message, context.signal),
    notify: (notification, context) => outbound.sendNotification(notification, context.signal),
  }
}

export default email

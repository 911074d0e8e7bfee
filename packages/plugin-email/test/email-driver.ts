import type { ChannelDriver } from "@aide/testing/channels"
import { simpleParser } from "mailparser"
import { DOMAIN, type MailServer, PASSWORD, startMailServer } from "./mail-server.js"

/**
 * The conformance kit's driver for the e-mail channel, over the real mail server of
 * mail-server.ts. A kit "user" is an address (`user<n>@test`); a "direct conversation" is one
 * e-mail thread of that user, rooted at `<thread.user<n>@test>`: every mail the user sends
 * replies in it, so the plugin's conversation id is `"<address> <thread.…>"`. What the plugin
 * sent is read off the SMTP server: a reply's conversation is its recipient and the first id of
 * its References; a notification (no References) is in `notifications`. Approvals are read from
 * the "APPROVE <id>" lines and answered by mailing that line back in the thread.
 */
export const emailDriver = (): ChannelDriver & { readonly server: () => MailServer } => {
  let server: MailServer
  let proxy: Awaited<ReturnType<MailServer["imapProxy"]>>
  const bot = `bot1@${DOMAIN}`
  let sequence = 0
  let last: string | undefined
  const rootOf = (address: string) => `<thread.${address}>`
  const conversationOf = (address: string) => `${address} ${rootOf(address)}`
  const parsed = new Map<number, { conversationId: string; text: string; approvals: Array<{ approvalId: string }> }>()

  const mailIn = async (from: string, text: string) => {
    sequence += 1
    const root = rootOf(from)
    const raw = [
      `From: <${from}>`,
      `To: <${bot}>`,
      "Subject: Re: conformance",
      `Message-ID: <m${sequence}.${Date.now()}@${DOMAIN}>`,
      `In-Reply-To: ${root}`,
      `References: ${root}`,
      "Content-Type: text/plain; charset=utf-8",
      "",
      text,
      "",
    ].join("\n")
    last = raw
    await server.deliver(bot, raw)
  }

  return {
    server: () => server,
    start: async () => {
      server = await startMailServer()
      proxy = await server.imapProxy()
      return {
        config: {
          username: bot,
          password: PASSWORD,
          imapHost: "127.0.0.1",
          imapPort: proxy.port,
          imapTls: "starttls",
          smtpHost: "127.0.0.1",
          smtpPort: server.smtpPort,
          smtpTls: "starttls",
          allowSelfSigned: true,
          pollSeconds: 2,
        },
      }
    },
    userId: (n) => `user${n}@${DOMAIN}`,
    directConversation: conversationOf,
    notificationConversation: "notifications",
    sendAsUser: ({ senderId, text }) => mailIn(senderId, text),
    outbound: async () => {
      const all = []
      for (let index = 0; index < server.received.length; index += 1) {
        let entry = parsed.get(index)
        if (entry === undefined) {
          const mail = await simpleParser(server.received[index]!.raw)
          const references = mail.references === undefined ? [] : [mail.references].flat()
          const to = server.received[index]!.to[0] ?? ""
          // What the owner sees of a mail: its subject, then its text.
          const text = `${mail.subject ?? ""}\n\n${mail.text ?? ""}`
          if (process.env.EMAIL_DRIVER_DEBUG)
            console.log(index, mail.messageId, server.received[index]!.to, text.slice(0, 200))
          const approvals = [...text.matchAll(/reply with the line: APPROVE (\S+)/g)].map((match) => ({
            approvalId: match[1]!,
          }))
          entry = {
            conversationId: references[0] === undefined ? "notifications" : `${to} ${references[0]}`,
            text,
            approvals,
          }
          parsed.set(index, entry)
        }
        all.push(entry)
      }
      return all
    },
    clickApproval: async ({ conversationId, senderId, approvalId, approved }) => {
      const id =
        approvalId ??
        (await emailOutbound(parsed, conversationId)) ??
        (() => {
          throw new Error("no approval offered")
        })()
      await mailIn(senderId, `${approved ? "APPROVE" : "DENY"} ${id}`)
    },
    // Mail has no length limit: one answer is one mail (the kit's splitting check is skipped).
    platformLimit: 1_000_000,
    dropConnection: async () => proxy.cut(),
    redeliverLast: async () => {
      if (last !== undefined) await server.deliver(bot, last)
    },
    stop: async () => {
      await proxy?.close()
      await server?.stop()
    },
  }
}

const emailOutbound = async (
  parsed: Map<number, { conversationId: string; approvals: Array<{ approvalId: string }> }>,
  conversationId: string,
) =>
  [...parsed.values()].filter((entry) => entry.conversationId === conversationId && entry.approvals.length > 0).at(-1)
    ?.approvals[0]?.approvalId

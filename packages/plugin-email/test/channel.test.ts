import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { ImapFlow } from "imapflow"
import { simpleParser } from "mailparser"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import email from "../src/channel.js"
import { KEYWORD } from "../src/mailbox.js"
import { DOMAIN, type MailServer, NO_IDLE_HOST, PASSWORD, startMailServer, unavailable } from "./mail-server.js"

const OWNER = `owner@${DOMAIN}`
const skipReason = unavailable()
if (skipReason !== null) console.warn(`plugin-email: the mail server tests are skipped: ${skipReason}`)

let server: MailServer
let nextBot = 0
beforeAll(async () => {
  if (skipReason === null) server = await startMailServer()
}, 30_000)
afterAll(async () => {
  await server?.stop()
})

/** A fresh mailbox per test, so no test reads another's mail. */
const freshBot = () => {
  nextBot += 1
  return `bot${nextBot}@${DOMAIN}`
}

const configFor = (bot: string, extra: Record<string, unknown> = {}) => ({
  username: bot,
  password: PASSWORD,
  imapHost: "127.0.0.1",
  imapPort: server.imapPort,
  imapTls: "starttls",
  smtpHost: "127.0.0.1",
  smtpPort: server.smtpPort,
  smtpTls: "starttls",
  fromName: "Aide",
  allowFrom: OWNER,
  allowSelfSigned: true,
  pollSeconds: 60,
  ...extra,
})

const waitUntil = async (check: () => boolean, timeoutMs = 8_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

type Answer = { conversationId: string; approvalId: string; approved: boolean }

const makeContext = (config: Record<string, unknown>) => {
  const received: Array<InboundMessage> = []
  const answers: Array<Answer> = []
  const logs: Array<{ message: string; data?: unknown }> = []
  const controller = new AbortController()
  const context: ChannelContext = {
    env: {},
    config,
    signal: controller.signal,
    log: (message, data) => logs.push({ message, data }),
    receive: async (message) => {
      received.push(message)
    },
    answerApproval: async (answer) => {
      answers.push({ conversationId: answer.conversationId, approvalId: answer.approvalId, approved: answer.approved })
    },
    // The e-mail channel runs in `host` and talks IMAP/SMTP itself: the brokered network is unused.
    fetch: () => Promise.reject(new Error("the e-mail channel does not use the brokered fetch")),
    webSocket: () => {
      throw new Error("the e-mail channel does not use WebSockets")
    },
    connect: () => Promise.reject(new Error("the e-mail channel does not use the brokered connect")),
  }
  return { context, received, answers, logs, controller }
}

/** A running channel, once it watches the mailbox (mail delivered before that is old mail). */
const start = async (bot: string, extra: Record<string, unknown> = {}) => {
  const running = launch(bot, extra)
  await Promise.race([running.watching(), running.started])
  return running
}

const launch = (bot: string, extra: Record<string, unknown> = {}) => {
  const config = configFor(bot, extra)
  const channel = email({ config, env: {} }) as ChannelDefinition
  const made = makeContext(config)
  const run = () => channel.realtime!.start(made.context)
  /** Resolves once the channel watches the mailbox (the n-th time it says so). */
  const watching = (times = 1) =>
    waitUntil(() => made.logs.filter((entry) => entry.message === "email: watching the mailbox").length >= times)
  return { channel, ...made, run, watching, started: run() }
}

let counter = 0
const mail = (headers: Record<string, string>, body: string) => {
  counter += 1
  const all = {
    From: `Ada Owner <${OWNER}>`,
    Subject: "Hello",
    Date: new Date().toUTCString(),
    "Message-ID": `<m${counter}.${Date.now()}@${DOMAIN}>`,
    "Content-Type": "text/plain; charset=utf-8",
    ...headers,
  }
  return `${Object.entries(all)
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n")}\n\n${body}\n`
}

/** The mail the SMTP server got after `count` others, parsed. */
const sentMail = async (index: number) => simpleParser(server.received[index]!.raw)

const describeMail = skipReason === null ? describe : describe.skip

describeMail("inbound by IMAP IDLE", () => {
  it("passes the owner's mail on with its From as the sender and its thread as the conversation", async () => {
    const bot = freshBot()
    const { received, controller, started } = await start(bot)
    await server.deliver(bot, mail({ "Message-ID": "<first@test>" }, "What is on today?"))
    await waitUntil(() => received.length === 1)
    expect(received[0]).toEqual({
      conversationId: `${OWNER} <first@test>`,
      text: "What is on today?",
      sender: { id: OWNER, name: "Ada Owner" },
    })
    controller.abort()
    await started
  })

  it("keeps a reply in its thread (References' root) and cuts the quoted history and signature", async () => {
    const bot = freshBot()
    const { received, controller, started } = await start(bot)
    const reply = mail(
      { "Message-ID": "<second@test>", "In-Reply-To": "<aide.1@test>", References: "<root@test> <aide.1@test>" },
      "Yes please.\n\n-- \nAda\n\nOn Mon, 1 Jan 2026 at 10:00, Aide <bot@test> wrote:\n> Shall I?\n> APPROVE x",
    )
    await server.deliver(bot, reply)
    await server.deliver(
      bot,
      mail({ "Message-ID": "<third@test>", "In-Reply-To": "<root@test>" }, "Also this\n> quoted\nand that"),
    )
    await waitUntil(() => received.length === 2)
    expect(received.map((message) => [message.conversationId, message.text])).toEqual([
      [`${OWNER} <root@test>`, "Yes please."],
      [`${OWNER} <root@test>`, "Also this\nand that"],
    ])
    controller.abort()
    await started
  })

  it("converts an HTML-only mail to text and passes attachments on as files, within the bounds", async () => {
    const bot = freshBot()
    const { received, controller, started } = await start(bot)
    const small = Buffer.from("%PDF-1.4 tiny")
    const big = Buffer.alloc(11 * 1024 * 1024, 7)
    const raw = [
      `From: ${OWNER}`,
      "Subject: files",
      "Message-ID: <files@test>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/html; charset=utf-8",
      "",
      "<p>See <b>these</b> &amp; tell me.</p>",
      "--b1",
      'Content-Type: application/pdf; name="a.pdf"',
      'Content-Disposition: attachment; filename="a.pdf"',
      "Content-Transfer-Encoding: base64",
      "",
      small.toString("base64"),
      "--b1",
      'Content-Type: application/octet-stream; name="big.bin"',
      'Content-Disposition: attachment; filename="big.bin"',
      "Content-Transfer-Encoding: base64",
      "",
      Array.from({ length: Math.ceil(big.length / 57) }, (_, line) =>
        big.subarray(line * 57, line * 57 + 57).toString("base64"),
      ).join("\n"),
      "--b1--",
    ].join("\n")
    await server.deliver(bot, raw)
    await waitUntil(() => received.length === 1)
    const [message] = received
    expect(message!.text).toContain("See these & tell me.")
    expect(message!.text).toContain('"big.bin" (11.0 MiB) was not passed on: the limit is 10.0 MiB per file')
    expect(message!.files).toEqual([
      {
        mediaType: "application/pdf",
        url: `data:application/pdf;base64,${small.toString("base64")}`,
        filename: "a.pdf",
      },
    ])
    controller.abort()
    await started
  })

  it("never passes on mail written by machines: auto-replies, bulk, bounces, lists, its own", async () => {
    const bot = freshBot()
    const { received, logs, controller, started } = await start(bot)
    await server.deliver(bot, mail({ "Auto-Submitted": "auto-replied" }, "I am on vacation"))
    await server.deliver(bot, mail({ Precedence: "bulk" }, "newsletter"))
    await server.deliver(bot, mail({ From: `MAILER-DAEMON@${DOMAIN}` }, "Undelivered mail"))
    await server.deliver(bot, mail({ Subject: "Delivery Status Notification" }, "a bounce"), "")
    await server.deliver(bot, mail({ "List-Id": "<list.test>" }, "list traffic"))
    await server.deliver(bot, mail({ From: bot }, "my own"))
    await server.deliver(bot, mail({}, "a person"))
    await waitUntil(() => received.length === 1).catch(() => {
      throw new Error(`received ${JSON.stringify(received)}; logs ${JSON.stringify(logs)}`)
    })
    expect(received.map((message) => message.text)).toEqual(["a person"])
    expect(logs.filter((entry) => entry.message.includes("sent by a machine"))).toHaveLength(6)
    controller.abort()
    await started
  })

  it("ignores a forged From: DMARC failed, or (when required) no check passed", async () => {
    const bot = freshBot()
    const { received, logs, controller, started } = await start(bot, { requireAuthenticated: true })
    const verdict = (results: string) => ({ "Authentication-Results": `mx.${DOMAIN}; ${results}` })
    await server.deliver(bot, mail(verdict("dmarc=fail header.from=test; spf=pass"), "forged 1"))
    await server.deliver(bot, mail({}, "forged 2, no verdict"))
    await server.deliver(bot, mail(verdict("spf=fail; dkim=none"), "forged 3"))
    await server.deliver(bot, mail(verdict("dkim=pass header.d=test; spf=softfail"), "genuine"))
    await waitUntil(() => received.length === 1)
    expect(received.map((message) => message.text)).toEqual(["genuine"])
    expect(logs.filter((entry) => entry.message.includes("not vouched for")).map((entry) => entry.data)).toEqual([
      { reason: "DMARC failed", from: OWNER },
      { reason: "no Authentication-Results from the receiving server", from: OWNER },
      { reason: "neither DMARC, DKIM nor SPF passed", from: OWNER },
    ])
    controller.abort()
    await started
  })

  it("polls a server without IDLE", async () => {
    const bot = freshBot()
    const probe = new ImapFlow({
      host: NO_IDLE_HOST,
      port: server.imapPort,
      secure: false,
      auth: { user: bot, pass: PASSWORD },
      tls: { rejectUnauthorized: false },
      logger: false,
    })
    await probe.connect()
    expect(probe.capabilities.has("IDLE")).toBe(false)
    await probe.logout()
    const { received, logs, controller, started } = await start(bot, { imapHost: NO_IDLE_HOST, pollSeconds: 1 })
    expect(logs.find((entry) => entry.message === "email: watching the mailbox")?.data).toEqual({
      idle: false,
      pollSeconds: 1,
    })
    await server.deliver(bot, mail({}, "polled"))
    await waitUntil(() => received.length === 1, 5_000)
    expect(received[0]!.text).toBe("polled")
    controller.abort()
    await started
  })

  it("refuses the server's self-signed certificate unless allowSelfSigned is on", async () => {
    const bot = freshBot()
    const { started } = launch(bot, { allowSelfSigned: false })
    await expect(started).rejects.toThrow(/certificate/i)
  })
})

describeMail("restarts and dropped connections", () => {
  it("after a restart answers only what came in meanwhile: nothing twice, nothing skipped", async () => {
    const bot = freshBot()
    const client = new ImapFlow({
      host: "127.0.0.1",
      port: server.imapPort,
      secure: false,
      auth: { user: bot, pass: PASSWORD },
      tls: { rejectUnauthorized: false },
      logger: false,
    })
    await client.connect()
    // Mail that arrived an hour before the channel first ran is never answered; mail of the last
    // minutes (sent while the owner was setting it up) is.
    await client.append("INBOX", mail({}, "old mail").replace(/\n/g, "\r\n"), [], new Date(Date.now() - 3_600_000))
    await server.deliver(bot, mail({}, "sent while enabling it"))
    const first = await start(bot)
    await server.deliver(bot, mail({}, "one"))
    await waitUntil(() => first.received.length === 2)
    first.controller.abort()
    await first.started
    await server.deliver(bot, mail({}, "two"))
    const three = mail({}, "three")
    await server.deliver(bot, three)
    await server.deliver(bot, three) // the same mail delivered twice: read once
    // A new channel: nothing in memory, the cursor is read back from the server's keywords.
    const second = await start(bot)
    await waitUntil(() => second.received.length === 2)
    // A mail after them: once it is in, anything read twice would have come before it.
    await server.deliver(bot, mail({}, "four"))
    await waitUntil(() => second.received.length >= 3)
    expect(first.received.map((message) => message.text)).toEqual(["sent while enabling it", "one"])
    expect(second.received.map((message) => message.text)).toEqual(["two", "three", "four"])
    expect(second.logs.some((entry) => entry.message.includes("delivered again was not read twice"))).toBe(true)
    await client.mailboxOpen("INBOX")
    const marked = await client.search({ keyword: KEYWORD }, { uid: true })
    expect(marked).toEqual([2, 3, 4, 5, 6, 7])
    await client.logout()
    second.controller.abort()
    await second.started
  })

  it("rejects when the connection drops, and the next start reads what arrived meanwhile", async () => {
    const bot = freshBot()
    const proxy = await server.imapProxy()
    const channel = await start(bot, { imapPort: proxy.port })
    await server.deliver(bot, mail({}, "before"))
    await waitUntil(() => channel.received.length === 1)
    proxy.cut()
    await expect(channel.started).rejects.toThrow(/closed/)
    await server.deliver(bot, mail({}, "while down"))
    const again = channel.run() // what Aide's gateway does, after its backoff
    await waitUntil(() => channel.received.length === 2)
    expect(channel.received.map((message) => message.text)).toEqual(["before", "while down"])
    channel.controller.abort()
    await again
    await proxy.close()
  })
})

describeMail("outbound by SMTP", () => {
  it("replies in the thread over STARTTLS: In-Reply-To, References, Re:, text and HTML, into the owner's mailbox", async () => {
    const bot = freshBot()
    const { channel, context, received, controller, started } = await start(bot)
    await server.deliver(
      bot,
      mail(
        { Subject: "Plans", "Message-ID": "<p2@test>", References: "<p1@test>", "In-Reply-To": "<p1@test>" },
        "and?",
      ),
    )
    await waitUntil(() => received.length === 1)
    const before = server.received.length
    const inOwnerBox = server.maildir("owner").length
    await channel.send!(
      {
        conversationId: received[0]!.conversationId,
        text: "Here:\n\n```js\nif (a < b) run()\n```\n\n**done**",
        approvals: [],
      },
      context,
    )
    expect(server.received.length).toBe(before + 1)
    const delivery = server.received[before]!
    expect(delivery.secure).toBe(true)
    expect(delivery.to).toEqual([OWNER])
    const sent = await sentMail(before)
    expect(sent.subject).toBe("Re: Plans")
    expect(sent.inReplyTo).toBe("<p2@test>")
    expect(sent.references).toEqual(["<p1@test>", "<p2@test>"])
    expect(sent.from?.value[0]).toEqual({ address: bot, name: "Aide" })
    expect(sent.headers.get("auto-submitted")).toBe("auto-replied")
    expect(sent.text).toContain("```js\nif (a < b) run()\n```")
    expect(sent.html).toContain("<pre")
    expect(sent.html).toContain("if (a &lt; b) run()")
    expect(sent.html).toContain("<strong>done</strong>")
    expect(sent.messageId).toMatch(new RegExp(`^<aide\\.[0-9a-f]{32}@${DOMAIN}>$`))
    await waitUntil(() => server.maildir("owner").length === inOwnerBox + 1)
    // The owner answers that reply: same conversation, and the assistant's mail is never read back.
    await server.deliver(
      bot,
      mail(
        { Subject: "Re: Plans", "In-Reply-To": sent.messageId!, References: `<p1@test> <p2@test> ${sent.messageId}` },
        "thanks",
      ),
    )
    await waitUntil(() => received.length === 2)
    expect(received[1]!.conversationId).toBe(received[0]!.conversationId)
    controller.abort()
    await started
  })

  it("sends the same message again when a send is retried: one Message-ID, so the client shows one", async () => {
    const bot = freshBot()
    const { channel, context, controller, started } = await start(bot)
    const before = server.received.length
    server.failNextData(1)
    const message = { conversationId: `${OWNER} <r1@test>`, text: "retried answer", approvals: [] }
    await expect(channel.send!(message, context)).rejects.toThrow(/451|Temporary/)
    await channel.send!(message, context)
    await channel.send!({ ...message, text: "another answer" }, context)
    const ids = await Promise.all(
      [before, before + 1, before + 2].map(async (index) => (await sentMail(index)).messageId),
    )
    expect(ids[0]).toBe(ids[1])
    expect(ids[2]).not.toBe(ids[0])
    const retried = await sentMail(before + 1)
    expect(retried.inReplyTo).toBe("<r1@test>")
    expect(retried.to).toMatchObject({ value: [{ address: OWNER }] })
    controller.abort()
    await started
  })

  it("offers approvals as reply lines and mailto links, and reads APPROVE / DENY back from the reply", async () => {
    const bot = freshBot()
    const { channel, context, received, answers, controller, started } = await start(bot)
    await server.deliver(bot, mail({ Subject: "Clean up", "Message-ID": "<a1@test>" }, "delete the tmp files"))
    await waitUntil(() => received.length === 1)
    const conversationId = received[0]!.conversationId
    const before = server.received.length
    const approvalId = "6f1c2a4e-0000-4000-8000-000000000001"
    await channel.send!(
      {
        conversationId,
        text: "I need to run a tool.",
        approvals: [{ approvalId, toolName: "shell", input: { cmd: "rm -rf /tmp/x" } }],
      },
      context,
    )
    const sent = await sentMail(before)
    expect(sent.text).toContain(`To approve, reply with the line: APPROVE ${approvalId}`)
    expect(sent.text).toContain('"cmd": "rm -rf /tmp/x"')
    expect(sent.html).toContain(`mailto:${encodeURIComponent(bot)}?subject=`)
    expect(sent.html).toContain(encodeURIComponent(`APPROVE ${approvalId}`))
    // A reply that quotes the whole mail, without ">" (some clients), answers nothing by accident.
    await server.deliver(
      bot,
      mail({ "In-Reply-To": sent.messageId!, References: `<a1@test> ${sent.messageId}` }, `ok\n\n${sent.text}`),
    )
    await server.deliver(
      bot,
      mail(
        { "In-Reply-To": sent.messageId!, References: `<a1@test> ${sent.messageId}` },
        `approve ${approvalId}\n\nOn Monday, Aide wrote:\n> To deny, reply with the line: DENY ${approvalId}`,
      ),
    )
    await waitUntil(() => answers.length === 1 && received.length === 2)
    expect(answers).toEqual([{ conversationId, approvalId, approved: true }])
    // A bare DENY names the one approval pending in the thread.
    await channel.send!(
      { conversationId, text: "", approvals: [{ approvalId: "second-id", toolName: "t", input: {} }] },
      context,
    )
    await server.deliver(bot, mail({ "In-Reply-To": "<x@test>", References: "<a1@test> <x@test>" }, "DENY"))
    await waitUntil(() => answers.length === 2)
    expect(answers[1]).toEqual({ conversationId, approvalId: "second-id", approved: false })
    expect(received).toHaveLength(2)
    controller.abort()
    await started
  })

  it("notifies the owner's first address, marked auto-generated", async () => {
    const bot = freshBot()
    const config = configFor(bot, { allowFrom: `${OWNER}, other@${DOMAIN}` })
    const channel = email({ config, env: {} }) as ChannelDefinition
    const { context, controller } = makeContext(config)
    const before = server.received.length
    await channel.notify!({ subject: "Daily report", body: "All *good*", threadId: null }, context)
    const sent = await sentMail(before)
    expect(server.received[before]!.to).toEqual([OWNER])
    expect(sent.subject).toBe("Daily report")
    expect(sent.headers.get("auto-submitted")).toBe("auto-generated")
    expect(sent.html).toContain("<em>good</em>")
    controller.abort() // closes the pooled SMTP connection
  })
})

describe("settings", () => {
  const base = {
    username: "a@example.com",
    password: "p",
    imapHost: "imap.example.com",
    smtpHost: "smtp.example.com",
  }
  it("refuses a configuration without its essentials, naming the field", () => {
    expect(() => email({ config: { ...base, username: "" }, env: {} })).toThrow(/username/)
    expect(() => email({ config: { ...base, password: "" }, env: {} })).toThrow(/EMAIL_PASSWORD/)
    expect(() => email({ config: { ...base, imapTls: "none" }, env: {} })).toThrow(/imapTls/)
    expect(() => email({ config: { ...base, allowFrom: "me at home" }, env: {} })).toThrow(/allowFrom/)
    expect(() => email({ config: { ...base, allowFrom: "me@x.org, Ada@Example.com" }, env: {} })).toThrow(
      /lower case.*Ada@Example\.com/,
    )
    expect(() => email({ config: { ...base, pollSeconds: 0 }, env: {} })).toThrow(/pollSeconds/)
  })
  it("takes the password from EMAIL_PASSWORD and defaults the ports to the TLS mode", () => {
    expect(email({ config: { ...base, password: "" }, env: { EMAIL_PASSWORD: "x" } })).toHaveProperty("realtime")
  })
})

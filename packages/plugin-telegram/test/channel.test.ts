import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { type FakeTelegram, startFakeTelegram } from "@aide/testing/fixtures"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import telegram from "../src/channel.js"

const OWNER = 4242
const STRANGER = 666

const makeContext = (config: Record<string, unknown>) => {
  const received: Array<InboundMessage> = []
  const answers: Array<{ conversationId: string; approvalId: string; approved: boolean }> = []
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
      answers.push(answer)
    },
    // This plugin calls its platform with the global fetch (a host channel).
    fetch: globalThis.fetch,
    webSocket: () => {
      throw new Error("no WebSocket in this test")
    },
    connect: () => Promise.reject(new Error("no socket in this test")),
  }
  return { context, received, answers, logs, controller }
}

const waitUntil = async (check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const textUpdate = (fromId: number, text: string) => ({
  message: {
    message_id: 1,
    date: 0,
    chat: { id: fromId, type: "private" },
    from: { id: fromId, is_bot: false, first_name: "Ada", last_name: "L" },
    text,
  },
})

/** Visible text of Telegram HTML (what Telegram counts against its 4,096 limit). */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")

let fake: FakeTelegram
beforeEach(async () => {
  fake = await startFakeTelegram()
})
afterEach(async () => {
  await fake.close()
})

const polling = (extra: Record<string, unknown> = {}) => {
  const config = { botToken: fake.token, ownerId: String(OWNER), apiRoot: fake.apiRoot, ...extra }
  const channel = telegram({ config, env: {} }) as ChannelDefinition
  const run = makeContext(config)
  const started = channel.realtime!.start(run.context)
  return { channel, ...run, started }
}

describe("long polling", () => {
  it("passes the owner's text on, with the chat as the conversation", async () => {
    const { received, controller, started } = polling()
    fake.pushUpdate(textUpdate(OWNER, "hello <there> & you"))
    await waitUntil(() => received.length === 1)
    expect(received[0]).toEqual({
      conversationId: String(OWNER),
      text: "hello <there> & you",
      sender: { id: String(OWNER), name: "Ada L" },
    })
    controller.abort()
    await started
  })

  it("passes every sender on with its id: Aide's gateway decides who may talk", async () => {
    const { received, logs, controller, started } = polling()
    fake.pushUpdate(textUpdate(STRANGER, "secret stranger words"))
    fake.pushUpdate(textUpdate(OWNER, "mine"))
    await waitUntil(() => received.length === 2)
    expect(received.map((message) => message.sender?.id)).toEqual([String(STRANGER), String(OWNER)])
    expect(JSON.stringify(logs)).not.toContain("secret stranger words")
    expect(fake.sent).toEqual([])
    controller.abort()
    await started
  })

  it("marks group messages, and whether they mention the bot (@username or a reply to it)", async () => {
    const { received, controller, started } = polling()
    const inGroup = (text: string, extra: Record<string, unknown> = {}) => ({
      message: { ...textUpdate(OWNER, text).message, chat: { id: -100, type: "supergroup" }, ...extra },
    })
    fake.pushUpdate(inGroup("just chatting"))
    fake.pushUpdate(inGroup("@aide_test_bot hi", { entities: [{ type: "mention", offset: 0, length: 14 }] }))
    fake.pushUpdate(inGroup("@someone_else hi", { entities: [{ type: "mention", offset: 0, length: 13 }] }))
    fake.pushUpdate(
      inGroup("and you?", {
        reply_to_message: {
          message_id: 1,
          date: 0,
          chat: { id: -100, type: "supergroup" },
          from: { id: 123456, is_bot: true, first_name: "Aide" },
        },
      }),
    )
    await waitUntil(() => received.length === 4)
    expect(received.map((message) => [message.group, message.mentioned])).toEqual([
      [true, false],
      [true, true],
      [true, false],
      [true, true],
    ])
    expect(received[0]!.conversationId).toBe("-100")
    controller.abort()
    await started
  })

  it("passes a photo on as a data URL file, with its caption", async () => {
    const { received, controller, started } = polling()
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3])
    const small = fake.addFile(new Uint8Array([1]), "photos/small.jpg")
    const large = fake.addFile(bytes, "photos/large.jpg")
    fake.pushUpdate({
      message: {
        ...textUpdate(OWNER, "").message,
        text: undefined,
        caption: "look",
        photo: [
          { file_id: small, file_unique_id: "s", width: 90, height: 90, file_size: 1 },
          { file_id: large, file_unique_id: "l", width: 800, height: 800, file_size: bytes.length },
        ],
      },
    })
    await waitUntil(() => received.length === 1)
    expect(received[0]!.text).toBe("look")
    expect(received[0]!.files).toEqual([
      { mediaType: "image/jpeg", url: `data:image/jpeg;base64,${Buffer.from(bytes).toString("base64")}` },
    ])
    controller.abort()
    await started
  })

  it("does not download a document over 10 MiB and tells the owner", async () => {
    const { received, controller, started } = polling()
    fake.pushUpdate({
      message: {
        ...textUpdate(OWNER, "").message,
        text: undefined,
        caption: "big one",
        document: { file_id: "nope", file_unique_id: "n", file_name: "big.pdf", file_size: 11 * 1024 * 1024 },
      },
    })
    await waitUntil(() => received.length === 1)
    expect(received[0]).not.toHaveProperty("files")
    expect(fake.sent.some((message) => String(message.text).includes("limit is 10 MiB"))).toBe(true)
    expect(fake.calls.some((call) => call.method === "getFile")).toBe(false)
    controller.abort()
    await started
  })

  it("stops when the channel's signal aborts, confirming the last update", async () => {
    const { received, controller, started } = polling()
    const last = fake.pushUpdate(textUpdate(OWNER, "one"))
    await waitUntil(() => received.length === 1)
    const begun = Date.now()
    controller.abort()
    await expect(started).resolves.toBeUndefined()
    expect(Date.now() - begun).toBeLessThan(2_000)
    await fake.waitFor("getUpdates", (call) => Number(call.params.offset) === last + 1)
  })

  it("rejects when Telegram refuses the token", async () => {
    const config = { botToken: "1:wrong", ownerId: String(OWNER), apiRoot: fake.apiRoot }
    const channel = telegram({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await expect(channel.realtime!.start(context)).rejects.toThrow(/401|Unauthorized/)
  })
})

describe("approvals", () => {
  it("offers approve / deny buttons and turns the owner's press into answerApproval", async () => {
    const { channel, context, answers, controller, started } = polling()
    await channel.send!(
      {
        conversationId: String(OWNER),
        text: "I need to run a tool.",
        approvals: [{ approvalId: "aitxt-abc123", toolName: "shell<rm>", input: { cmd: "rm -rf <dir> && ls" } }],
      },
      context,
    )
    const buttons = fake.sent[1]!
    expect(buttons.text).toContain("<code>shell&lt;rm&gt;</code>")
    expect(buttons.text).toContain("rm -rf &lt;dir&gt; &amp;&amp; ls")
    const keyboard = buttons.reply_markup.inline_keyboard[0]
    expect(keyboard.map((button: { callback_data: string }) => button.callback_data)).toEqual([
      "a:aitxt-abc123",
      "d:aitxt-abc123",
    ])
    fake.pushUpdate({
      callback_query: {
        id: "cb-1",
        from: { id: OWNER, is_bot: false, first_name: "Ada" },
        chat_instance: "x",
        data: "d:aitxt-abc123",
        message: { message_id: 7, date: 0, chat: { id: OWNER, type: "private" }, text: visible(buttons.text) },
      },
    })
    await waitUntil(() => answers.length === 1)
    expect(answers[0]).toEqual({
      conversationId: String(OWNER),
      approvalId: "aitxt-abc123",
      approved: false,
      sender: { id: String(OWNER), name: "Ada" },
    })
    const answered = await fake.waitFor("answerCallbackQuery")
    expect(answered.params).toMatchObject({ callback_query_id: "cb-1", text: "Denied" })
    controller.abort()
    await started
  })

  it("keeps an approval id longer than 64 bytes in the message text instead of the button", async () => {
    const { channel, context, answers, controller, started } = polling()
    const approvalId = `approval-${"x".repeat(80)}`
    await channel.send!(
      { conversationId: String(OWNER), text: "", approvals: [{ approvalId, toolName: "t", input: {} }] },
      context,
    )
    const message = fake.sent[0]!
    const data = message.reply_markup.inline_keyboard[0].map(
      (button: { callback_data: string }) => button.callback_data,
    )
    expect(data).toEqual(["a", "d"])
    fake.pushUpdate({
      callback_query: {
        id: "cb-2",
        from: { id: OWNER, is_bot: false, first_name: "Ada" },
        chat_instance: "x",
        data: "a",
        message: { message_id: 8, date: 0, chat: { id: OWNER, type: "private" }, text: visible(message.text) },
      },
    })
    await waitUntil(() => answers.length === 1)
    expect(answers[0]).toMatchObject({ conversationId: String(OWNER), approvalId, approved: true })
    controller.abort()
    await started
  })

  it("passes who pressed a button on (the gateway refuses a sender not allowed)", async () => {
    const { answers, controller, started } = polling()
    fake.pushUpdate({
      callback_query: {
        id: "cb-3",
        from: { id: STRANGER, is_bot: false, first_name: "Eve" },
        chat_instance: "x",
        data: "a:aitxt-1",
        message: { message_id: 9, date: 0, chat: { id: OWNER, type: "private" }, text: "…" },
      },
    })
    await fake.waitFor("answerCallbackQuery", (call) => call.params.callback_query_id === "cb-3")
    expect(answers).toEqual([
      {
        conversationId: String(OWNER),
        approvalId: "aitxt-1",
        approved: true,
        sender: { id: String(STRANGER), name: "Eve" },
      },
    ])
    controller.abort()
    await started
  })
})

describe("sending", () => {
  it("splits a 10,000-character message before formatting and escapes every text", async () => {
    const config = { botToken: fake.token, ownerId: String(OWNER), apiRoot: fake.apiRoot }
    const channel = telegram({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    const sentence = "Tom <b>& Jerry</b> **bold** here. "
    const text = sentence.repeat(Math.ceil(10_000 / sentence.length)).slice(0, 10_000)
    await channel.send!({ conversationId: String(OWNER), text, approvals: [] }, context)
    expect(fake.sent.length).toBe(3)
    for (const message of fake.sent) {
      expect(message.parse_mode).toBe("HTML")
      expect(visible(message.text).length).toBeLessThanOrEqual(4096)
      // Only the tags we made: every <b> opened is closed, the author's "<b>" is text.
      expect(message.text).not.toMatch(/<b>& Jerry/)
      expect((message.text.match(/<b>/g) ?? []).length).toBe((message.text.match(/<\/b>/g) ?? []).length)
      expect(message.text).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/)
    }
    const joined = fake.sent.map((message) => visible(message.text)).join("")
    expect(joined.replace(/\s/g, "")).toBe(text.replace(/\*\*/g, "").replace(/\s/g, ""))
  })

  it("notifies the owner's chat with the subject in bold", async () => {
    const config = { botToken: fake.token, ownerId: String(OWNER), apiRoot: fake.apiRoot }
    const channel = telegram({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await channel.notify!({ subject: "Daily <report>", body: "All *good* & done", threadId: null }, context)
    expect(fake.sent).toEqual([
      { chat_id: String(OWNER), text: "<b>Daily &lt;report&gt;</b>\n\nAll <i>good</i> &amp; done", parse_mode: "HTML" },
    ])
  })
})

describe("webhook mode", () => {
  const webhookChannel = () => {
    const config = {
      botToken: fake.token,
      ownerId: String(OWNER),
      apiRoot: fake.apiRoot,
      mode: "webhook",
      webhookSecret: "s3cret",
    }
    return { channel: telegram({ config, env: {} }) as ChannelDefinition, ...makeContext(config) }
  }

  it("declares the secret-token check and no polling", () => {
    const { channel } = webhookChannel()
    expect(channel.realtime).toBeUndefined()
    expect(channel.webhook!.verify).toEqual({
      kind: "token",
      header: "x-telegram-bot-api-secret-token",
      secret: { config: "webhookSecret" },
    })
  })

  it("hands a verified update to the assistant and answers 200", async () => {
    const { channel, context, received } = webhookChannel()
    const request = { method: "POST", headers: {}, body: JSON.stringify({ update_id: 1, ...textUpdate(OWNER, "hi") }) }
    await expect(channel.webhook!.handle(request, context)).resolves.toEqual({ status: 200 })
    expect(received.map((message) => message.text)).toEqual(["hi"])
  })

  it("answers 400 to a body that is not an update", async () => {
    const { channel, context } = webhookChannel()
    const response = await channel.webhook!.handle({ method: "POST", headers: {}, body: "{nope" }, context)
    expect(response?.status).toBe(400)
  })

  it("refuses webhook mode without a secret", () => {
    const config = { botToken: fake.token, ownerId: String(OWNER), mode: "webhook" }
    expect(() => telegram({ config, env: {} })).toThrow(/webhookSecret/)
  })

  it("takes the token from TELEGRAM_BOT_TOKEN when the setting is empty", () => {
    const config = { ownerId: String(OWNER) }
    expect(() => telegram({ config, env: {} })).toThrow(/botToken/)
    expect(telegram({ config, env: { TELEGRAM_BOT_TOKEN: "1:x" } })).toHaveProperty("realtime")
  })
})

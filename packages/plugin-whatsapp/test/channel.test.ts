import type { ChannelDefinition } from "@aide/plugin"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import whatsapp from "../src/channel.js"
import { type FakeGraph, PHONE_NUMBER_ID, startFakeGraph } from "./fake-graph.js"
import { makeContext, startWebhookFront } from "./support.js"

const OWNER = "16505551234"
const STRANGER = "447700900123"
const VERIFY = "my-verify-token"

let fake: FakeGraph
beforeAll(async () => {
  fake = await startFakeGraph()
})
afterAll(async () => {
  await fake.close()
})
afterEach(() => {
  fake.sent.length = 0
  fake.calls.length = 0
})

const configOf = (extra: Record<string, unknown> = {}) => ({
  accessToken: fake.token,
  phoneNumberId: PHONE_NUMBER_ID,
  appSecret: fake.appSecret,
  verifyToken: VERIFY,
  allowFrom: `+${OWNER}`,
  apiRoot: fake.apiRoot,
  ...extra,
})

const setUp = async (extra: Record<string, unknown> = {}) => {
  const config = configOf(extra)
  const channel = whatsapp({ config, env: {} }) as ChannelDefinition
  const run = makeContext(config)
  const front = await startWebhookFront(channel, run.context, fake.appSecret, VERIFY)
  const deliver = (value: Parameters<FakeGraph["notification"]>[0], phoneNumberId?: string) =>
    fake.deliver(front.url, JSON.stringify(fake.notification(value, phoneNumberId)))
  return { channel, ...run, front, deliver }
}

describe("the webhook", () => {
  it("answers Meta's GET handshake for the verify token only (through Aide's route logic)", async () => {
    const { front } = await setUp()
    const get = (token: string) =>
      fetch(`${front.url}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`)
    const good = await get(VERIFY)
    expect({ status: good.status, text: await good.text() }).toEqual({ status: 200, text: "1158201444" })
    expect((await get("wrong")).status).toBe(403)
    await front.close()
  })

  it("passes signed text on with the sender in E.164; a wrong signature never reaches the channel", async () => {
    const { front, deliver, received } = await setUp()
    const answer = await deliver({
      contacts: [{ profile: { name: "Ada" }, wa_id: OWNER }],
      messages: [fake.textMessage(OWNER, "hello *there*")],
    })
    expect(answer.status).toBe(200)
    expect(received).toEqual([
      { conversationId: OWNER, text: "hello *there*", sender: { id: `+${OWNER}`, name: "Ada" }, group: false },
    ])
    const body = JSON.stringify(fake.notification({ messages: [fake.textMessage(OWNER, "forged")] }))
    expect((await fake.deliver(front.url, body, "not-the-secret")).status).toBe(401)
    expect(received).toHaveLength(1)
    await front.close()
  })

  it("hands strangers to the gateway too, ignores statuses and other numbers, and a redelivered message once", async () => {
    const { front, deliver, received, logs } = await setUp()
    const message = fake.textMessage(STRANGER, "hi", "wamid.same")
    await deliver({ messages: [message] })
    // Meta's redelivery after a failed answer: the same message, a new body (so a new signature).
    await deliver({ messages: [message], contacts: [] })
    await deliver({
      statuses: [
        { id: "wamid.x", status: "failed", recipient_id: OWNER, errors: [{ code: 131026, title: "Undeliverable" }] },
      ],
    })
    await deliver({ messages: [fake.textMessage(OWNER, "other number")] }, "999")
    expect(received.map((entry) => [entry.sender?.id, entry.text])).toEqual([[`+${STRANGER}`, "hi"]])
    expect(logs.some((entry) => entry.message.includes("not delivered"))).toBe(true)
    await front.close()
  })

  it("fetches an image through the Graph API as a data URL file; refuses one over 10 MiB and tells the owner", async () => {
    const { front, deliver, received } = await setUp()
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 7, 8])
    const small = fake.addMedia(bytes, "image/jpeg")
    await deliver({
      messages: [
        {
          from: OWNER,
          id: "wamid.img",
          timestamp: "1",
          type: "image",
          image: { id: small, caption: "look", mime_type: "image/jpeg" },
        },
      ],
    })
    expect(received[0]).toMatchObject({
      text: "look",
      files: [{ mediaType: "image/jpeg", url: `data:image/jpeg;base64,${Buffer.from(bytes).toString("base64")}` }],
    })
    const big = fake.addMedia(new Uint8Array([1]), "application/pdf", 11 * 1024 * 1024)
    await deliver({
      messages: [
        {
          from: OWNER,
          id: "wamid.doc",
          timestamp: "1",
          type: "document",
          document: { id: big, filename: "big.pdf", caption: "big" },
        },
      ],
    })
    expect(received[1]).toMatchObject({ text: "big" })
    expect(received[1]).not.toHaveProperty("files")
    expect(fake.sent.some((message) => String(message.text?.body).includes("limit is 10 MiB"))).toBe(true)
    // Its size was read from the Graph API; its bytes were never downloaded.
    expect(fake.calls.some((call) => call.path === `/media/${big}`)).toBe(false)
    expect(fake.calls.some((call) => call.path === `/media/${small}`)).toBe(true)
    await front.close()
  })
})

describe("replies and approvals", () => {
  it("converts markdown to WhatsApp's subset and splits at 4,096, code blocks kept", async () => {
    const { channel, context, deliver } = await setUp()
    await deliver({ messages: [fake.textMessage(OWNER, "go")] })
    const prose = "A **bold** claim and a [link](https://example.com). ".repeat(100)
    const code = Array.from({ length: 150 }, (_, i) => `print(${i}) # **not bold**`).join("\n")
    await channel.send!(
      { conversationId: OWNER, text: `# Title\n\n${prose}\n\n\`\`\`py\n${code}\n\`\`\``, approvals: [] },
      context,
    )
    const bodies = fake.sent.map((message) => String(message.text.body))
    expect(bodies.length).toBeGreaterThan(1)
    for (const body of bodies) {
      expect(body.length).toBeLessThanOrEqual(4096)
      expect((body.match(/```/g) ?? []).length % 2).toBe(0)
    }
    expect(bodies[0]).toMatch(/^\*Title\*/)
    expect(bodies.join("\n")).toContain("A *bold* claim and a link (https://example.com).")
    expect(bodies.join("\n")).toContain("print(149) # **not bold**")
  })

  it("offers reply buttons (titles within 20) and turns the tap into answerApproval", async () => {
    const { channel, context, deliver, answers } = await setUp()
    await deliver({ messages: [fake.textMessage(OWNER, "go")] })
    await channel.send!(
      {
        conversationId: OWNER,
        text: "",
        approvals: [{ approvalId: "aitxt-1", toolName: "shell", input: { cmd: "ls" } }],
      },
      context,
    )
    const interactive = fake.sent[0]!.interactive
    expect(interactive.action.buttons.map((button: any) => button.reply)).toEqual([
      { id: "a:aitxt-1", title: "Approve" },
      { id: "d:aitxt-1", title: "Deny" },
    ])
    expect(interactive.body.text).toContain("`shell`")
    await deliver({
      messages: [
        {
          from: OWNER,
          id: "wamid.tap",
          timestamp: "1",
          type: "interactive",
          context: { from: "15550001111", id: fake.sent[0]!.id },
          interactive: { type: "button_reply", button_reply: { id: "d:aitxt-1", title: "Deny" } },
        },
      ],
    })
    expect(answers).toEqual([{ conversationId: OWNER, approvalId: "aitxt-1", approved: false }])
  })

  it("waits out a rate limit (130429) and sends once; a lost answer is not sent twice on Aide's retry", async () => {
    const { channel, context, deliver } = await setUp()
    await deliver({ messages: [fake.textMessage(OWNER, "go")] })
    fake.failNext({ status: 429, code: 130429 })
    await channel.send!({ conversationId: OWNER, text: "after the limit", approvals: [] }, context)
    expect(fake.sent.map((message) => message.text.body)).toEqual(["after the limit"])
    fake.sent.length = 0
    const text = `${"First part. ".repeat(400)}\n\n${"Second part. ".repeat(400)}`
    fake.failNext({ kind: "drop-after-send" }, 1)
    await expect(channel.send!({ conversationId: OWNER, text, approvals: [] }, context)).rejects.toThrow(/no answer/)
    await channel.send!({ conversationId: OWNER, text, approvals: [] }, context)
    // Four chunks (4,096 at most each, two per paragraph): the first went out, the second went
    // out but its answer was lost, Aide's retry sends only the last two.
    const bodies = fake.sent.map((message) => String(message.text.body))
    expect(bodies).toHaveLength(4)
    expect(new Set(bodies).size).toBe(4)
    expect(bodies[0]!.trim()).toMatch(/^First part\./)
    expect(bodies[3]!.trim()).toMatch(/Second part\.$/)
  })
})

describe("notifications and the 24-hour window", () => {
  it("inside the window: free-form to the owner", async () => {
    const { channel, context, deliver } = await setUp()
    await deliver({ messages: [fake.textMessage(OWNER, "hi")] })
    await channel.notify!({ subject: "Digest", body: "All **good**.", threadId: null }, context)
    expect(fake.sent.map((message) => [message.to, message.type, message.text?.body])).toEqual([
      [OWNER, "text", "*Digest*\n\nAll *good*."],
    ])
  })

  it("outside it: the configured template with the subject, else a clear failure", async () => {
    fake.setLastInbound(OWNER, Date.now() - 25 * 3600 * 1000)
    const plain = await setUp()
    await expect(
      plain.channel.notify!({ subject: "Digest", body: "b", threadId: null }, plain.context),
    ).rejects.toThrow(/24 hours.*notifyTemplate/)
    expect(plain.logs.some((entry) => entry.message.includes("notifyTemplate"))).toBe(true)
    expect(fake.sent).toEqual([])

    const templated = await setUp({ notifyTemplate: "aide_notification", templateLanguage: "en" })
    await templated.channel.notify!({ subject: "Digest", body: "b", threadId: null }, templated.context)
    expect(fake.sent.map((message) => message.template)).toEqual([
      {
        name: "aide_notification",
        language: { code: "en" },
        components: [{ type: "body", parameters: [{ type: "text", text: "Digest" }] }],
      },
    ])
    fake.setLastInbound(OWNER, undefined)
  })
})

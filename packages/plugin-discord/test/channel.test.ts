import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import discord, { createDiscord } from "../src/channel.js"
import { INTENTS } from "../src/gateway.js"
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from "./fake-discord.js"

const OWNER = "200000000000000001"
const STRANGER = "200000000000000666"
const DM = "300000000000000001"
const GUILD = "400000000000000001"
const GUILD_CHANNEL = "400000000000000002"

const waitUntil = async (check: () => boolean, what = "condition", timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Quick, predictable Gateway timing: first heartbeat at half the interval, reconnects at once. */
const timing = { random: () => 0.5, reconnectDelay: () => 0, invalidSessionDelay: () => 50 }

let fake: FakeDiscord
const startFake = async (options: FakeDiscordOptions = {}) => {
  fake = await startFakeDiscord({ heartbeatInterval: 200, ...options })
  return fake
}
afterEach(async () => {
  await fake?.close()
})

const makeContext = (config: Record<string, unknown>) => {
  const received: Array<InboundMessage & { group?: boolean; mentioned?: boolean }> = []
  const answers: Array<{ conversationId: string; approvalId: string; approved: boolean; sender?: { id: string } }> = []
  const logs: Array<{ message: string; data?: unknown }> = []
  const controller = new AbortController()
  const context = {
    env: {},
    config,
    signal: controller.signal,
    log: (message: string, data?: unknown) => logs.push({ message, data }),
    receive: async (message: InboundMessage) => {
      received.push(message)
    },
    // Like Aide's gateway: an unknown approval, or a clicker who may not talk, is refused.
    answerApproval: async (answer: {
      conversationId: string
      approvalId: string
      approved: boolean
      sender?: { id: string }
    }) => {
      if (answer.approvalId === "gone") throw new Error("ApprovalNotFound")
      if (answer.sender?.id !== OWNER) throw new Error("SenderNotAllowed")
      answers.push(answer)
    },
    fetch,
    webSocket: (url: string) => new WebSocket(url),
  } as unknown as ChannelContext
  return { context, received, answers, logs, controller }
}

const connect = (extra: Record<string, unknown> = {}) => {
  const config = { botToken: fake.token, allowFrom: OWNER, apiBase: fake.apiBase, ...extra }
  const channel = createDiscord({ config, env: {} }, { timing })
  const run = makeContext(config)
  const started = channel.realtime!.start(run.context)
  const stop = async () => {
    run.controller.abort()
    await started
  }
  return { channel, ...run, started, stop }
}

describe("the Gateway", () => {
  beforeEach(async () => {
    await startFake()
  })

  it("identifies with DIRECT_MESSAGES only, heartbeats with a jittered first beat, and passes the owner's DM on", async () => {
    const { received, stop } = connect()
    await waitUntil(fake.ready, "identified")
    expect(fake.identifies).toEqual([{ intents: INTENTS.DIRECT_MESSAGES, token: fake.token }])
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "hello **there**", username: "ada" })
    await waitUntil(() => received.length === 1, "received")
    expect(received[0]).toEqual({
      conversationId: DM,
      text: "hello **there**",
      sender: { id: OWNER, name: "ada" },
      group: false,
    })
    await waitUntil(() => fake.connections[0]!.heartbeats.length >= 2, "two heartbeats")
    const [first, second] = fake.connections[0]!.heartbeats
    // random() = 0.5: the first beat after half the interval, the next a full interval later.
    expect(first!.at).toBeGreaterThanOrEqual(90)
    expect(first!.at).toBeLessThan(200)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(180)
    expect(second!.d).toBe(2) // READY was 1, the message 2: the last sequence number
    await stop()
    expect(fake.clientCloses).toEqual([1000])
  })

  it("ignores bots, its own messages included, and guild messages while groups is off", async () => {
    const { channel, context, received, stop } = connect()
    await waitUntil(fake.ready, "identified")
    await channel.send!({ conversationId: DM, text: "from the bot", approvals: [] }, context)
    fake.userMessage({
      authorId: OWNER,
      channelId: GUILD_CHANNEL,
      guildId: GUILD,
      content: "in a guild",
      mentionsBot: true,
    })
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "last" })
    await waitUntil(() => received.length === 1, "received")
    expect(received.map((message) => message.text)).toEqual(["last"])
    await stop()
  })

  it("with groups on, asks for GUILD_MESSAGES and passes only mentions on, the mention removed", async () => {
    const { received, stop } = connect({ groups: true })
    await waitUntil(fake.ready, "identified")
    expect(fake.identifies[0]!.intents).toBe(INTENTS.DIRECT_MESSAGES | INTENTS.GUILD_MESSAGES)
    fake.userMessage({ authorId: STRANGER, channelId: GUILD_CHANNEL, guildId: GUILD, content: "chatter" })
    fake.userMessage({
      authorId: STRANGER,
      channelId: GUILD_CHANNEL,
      guildId: GUILD,
      content: `<@${fake.botId}> what time is it?`,
      mentionsBot: true,
    })
    await waitUntil(() => received.length === 1, "received")
    expect(received[0]).toMatchObject({
      conversationId: GUILD_CHANNEL,
      text: "what time is it?",
      sender: { id: STRANGER },
      group: true,
      mentioned: true,
    })
    await stop()
  })

  it("resumes after a dropped connection with the last sequence number, and gets what it missed once", async () => {
    const { received, stop } = connect()
    await waitUntil(fake.ready, "identified")
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "one" })
    await waitUntil(() => received.length === 1, "first")
    fake.dropConnection()
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "while away" })
    await waitUntil(() => received.length === 2, "replayed")
    expect(fake.resumes).toEqual([{ sessionId: expect.any(String), seq: 2 }])
    expect(fake.connections[1]!.path).toBe("/resume")
    expect(fake.identifies).toHaveLength(1)
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "after" })
    await waitUntil(() => received.length === 3, "after")
    expect(received.map((message) => message.text)).toEqual(["one", "while away", "after"])
    await stop()
  })

  it("closes a zombie connection (no heartbeat ack) without ending the session, and resumes", async () => {
    const { stop } = connect()
    await waitUntil(fake.ready, "identified")
    fake.control.acksPaused = true
    await waitUntil(() => fake.resumes.length === 1, "resumed")
    expect(fake.clientCloses[0]).not.toBe(1000)
    expect(fake.clientCloses[0]).not.toBe(1001)
    fake.control.acksPaused = false
    await waitUntil(fake.ready, "ready again")
    expect(fake.identifies).toHaveLength(1)
    await stop()
  })

  it("resumes on op 7 Reconnect and on a resumable op 9; identifies anew after op 9 false", async () => {
    const { received, stop } = connect()
    await waitUntil(fake.ready, "identified")
    fake.reconnect()
    await waitUntil(() => fake.resumes.length === 1 && fake.ready(), "resumed after op 7")
    fake.invalidSession(true)
    await waitUntil(() => fake.resumes.length === 2 && fake.ready(), "resumed after op 9 true")
    fake.invalidSession(false)
    await waitUntil(() => fake.identifies.length === 2 && fake.ready(), "identified after op 9 false")
    fake.userMessage({ authorId: OWNER, channelId: DM, content: "still here" })
    await waitUntil(() => received.length === 1, "received")
    await stop()
  })

  it("stops with the reason on 4004 Authentication failed, without reconnecting", async () => {
    fake.control.tokenRevoked = true
    const { started } = connect()
    await expect(started).rejects.toThrow(/4004 Authentication failed\): check botToken/)
    expect(fake.connections).toHaveLength(1)
  })

  it("rejects a token Discord refuses at /gateway/bot with a readable reason", async () => {
    const config = { botToken: "wrong", allowFrom: OWNER, apiBase: fake.apiBase }
    const channel = createDiscord({ config, env: {} }, { timing })
    const { context } = makeContext(config)
    await expect(channel.realtime!.start(context)).rejects.toThrow("Discord refused the bot token (401)")
    expect(fake.connections).toHaveLength(0)
  })
})

describe("intents Discord does not allow", () => {
  it("stops with 4014 and says where to enable them", async () => {
    await startFake({ disallowedIntents: INTENTS.GUILD_MESSAGES })
    const { started } = connect({ groups: true })
    await expect(started).rejects.toThrow(/4014 Disallowed intent\(s\)\): enable them .*Developer Portal/)
    expect(fake.connections).toHaveLength(1)
  })
})

describe("approvals", () => {
  beforeEach(async () => {
    await startFake()
  })

  it("offers buttons and turns the owner's click into answerApproval, acknowledged within the interaction", async () => {
    const { channel, context, answers, stop } = connect()
    await waitUntil(fake.ready, "identified")
    await channel.send!(
      {
        conversationId: DM,
        text: "I need a tool.",
        approvals: [{ approvalId: "ap-123", toolName: "shell", input: { cmd: "ls ```" } }],
      },
      context,
    )
    expect(fake.messages.map((message) => message.content)[0]).toBe("I need a tool.")
    const buttons = fake.messages[1]!
    expect(buttons.content).toContain("`shell`")
    expect(buttons.components[0].components.map((button: { custom_id: string }) => button.custom_id)).toEqual([
      "aide:a:ap-123",
      "aide:d:ap-123",
    ])
    fake.click({ userId: OWNER, channelId: DM, customId: "aide:d:ap-123", messageId: buttons.id })
    await waitUntil(() => fake.callbacks.length === 1, "callback")
    expect(answers).toEqual([{ conversationId: DM, approvalId: "ap-123", approved: false, sender: { id: OWNER } }])
    expect(fake.callbacks[0]!.body.type).toBe(7)
    expect(fake.callbacks[0]!.body.data.components).toEqual([])
    expect(fake.callbacks[0]!.body.data.content).toContain("❌ Denied")
    await stop()
  })

  it("answers a refused approval privately: an unknown one, or a stranger's click in a guild channel", async () => {
    const { answers, stop } = connect({ groups: true })
    await waitUntil(fake.ready, "identified")
    fake.click({ userId: OWNER, channelId: DM, customId: "aide:a:gone" })
    fake.click({ userId: STRANGER, channelId: GUILD_CHANNEL, guildId: GUILD, customId: "aide:a:ap-9" })
    await waitUntil(() => fake.callbacks.length === 2, "callbacks")
    expect(answers).toEqual([])
    expect(fake.callbacks.map((callback) => [callback.body.type, callback.body.data.flags])).toEqual([
      [4, 64],
      [4, 64],
    ])
    await stop()
  })
})

describe("sending", () => {
  beforeEach(async () => {
    await startFake({ bucket: { limit: 2, windowMs: 300 } })
  })

  const sender = () => {
    const config = { botToken: fake.token, allowFrom: OWNER, apiBase: fake.apiBase }
    return { channel: discord({ config, env: {} }) as ChannelDefinition, ...makeContext(config) }
  }

  it("splits at 2,000 characters keeping code blocks whole per message, waiting out the bucket instead of a 429", async () => {
    const { channel, context } = sender()
    const paragraph = `${"word ".repeat(150)}\n\n`
    const code = `\`\`\`js\n${"const x = 1 // @everyone\n".repeat(80)}\`\`\`\n`
    const text = `${paragraph.repeat(3)}${code}${paragraph}| a | b |\n|---|---|\n| 1 | 2 |`
    await channel.send!({ conversationId: DM, text, approvals: [] }, context)
    expect(fake.messages.length).toBeGreaterThanOrEqual(3)
    for (const message of fake.messages) {
      expect(message.content.length).toBeLessThanOrEqual(2000)
      expect((message.content.match(/^```/gm) ?? []).length % 2).toBe(0)
      expect(message.allowedMentions).toEqual({ parse: [] })
      expect(message.nonce).toMatch(/^[\w-]{1,25}$/)
    }
    expect(fake.messages.at(-1)!.content).toContain("```\n| a | b |")
    expect(fake.requests.filter((request) => request.status === 429)).toEqual([])
    const posts = fake.requests.filter((request) => request.method === "POST")
    // Two per 300 ms window: the third waited for the bucket to refill.
    expect(posts[2]!.at - posts[0]!.at).toBeGreaterThanOrEqual(250)
  })

  it("honours a 429's retry_after and sends the message once", async () => {
    const { channel, context } = sender()
    fake.control.forced429 = 1
    fake.control.retryAfter = 0.25
    await channel.send!({ conversationId: DM, text: "hi", approvals: [] }, context)
    const posts = fake.requests.filter((request) => request.method === "POST")
    expect(posts.map((request) => request.status)).toEqual([429, 200])
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(240)
    expect(fake.messages.map((message) => message.content)).toEqual(["hi"])
  })

  it("does not post twice when an answer is lost and the message is sent again", async () => {
    const { channel, context } = sender()
    fake.control.lostResponses = 1
    await channel.send!({ conversationId: DM, text: "exactly once", approvals: [] }, context)
    expect(fake.requests.filter((request) => request.method === "POST").map((request) => request.status)).toEqual([
      502, 200,
    ])
    expect(fake.messages.map((message) => message.content)).toEqual(["exactly once"])
  })

  it("when Aide sends a failed reply again, the chunks that went out are not posted twice", async () => {
    let skew = 0
    const config = { botToken: fake.token, allowFrom: OWNER, apiBase: fake.apiBase }
    const channel = createDiscord({ config, env: {} }, { now: () => Date.now() + skew })
    const { context } = makeContext(config)
    const message = { conversationId: DM, text: `${"a ".repeat(900)}\n\n${"b ".repeat(900)}`, approvals: [] }
    // The first chunk is made but its answer is lost; the retry meets a 429 longer than the
    // channel waits, so the reply fails with the first chunk out.
    fake.control.lostResponses = 1
    fake.control.forced429 = 1
    fake.control.forced429From = 1
    fake.control.retryAfter = 120
    await expect(channel.send!(message, context)).rejects.toThrow(/rate limited/)
    expect(fake.messages).toHaveLength(1)
    skew = 121_000 // the rate limit is over
    await channel.send!(message, context)
    expect(fake.messages.map((created) => created.content[0])).toEqual(["a", "b"])
  })

  it("tries again when Aide's broker refuses a fetch (its per-plugin limits), even a non-idempotent one", async () => {
    const { channel, context } = sender()
    let refusals = 2
    const brokered = {
      ...context,
      fetch: (async (...args: Parameters<typeof fetch>) => {
        if (refusals-- > 0) throw new Error("fetch refused: more than 8 fetches in flight")
        return fetch(...args)
      }) as typeof fetch,
    }
    await channel.notify!({ subject: "s", body: "b", threadId: null }, brokered)
    expect(fake.messages.map((message) => message.content)).toEqual(["**s**\n\nb"])
  })

  it("notifies the owner in their DM, opened once", async () => {
    const { channel, context } = sender()
    await channel.notify!({ subject: "Daily *report*", body: "All good", threadId: null }, context)
    await channel.notify!({ subject: "Again", body: "Still good", threadId: null }, context)
    const dm = fake.dmChannel(OWNER)!
    expect(fake.messages.map((message) => [message.channelId, message.content])).toEqual([
      [dm, "**Daily \\*report\\***\n\nAll good"],
      [dm, "**Again**\n\nStill good"],
    ])
    expect(fake.requests.filter((request) => request.path.endsWith("/users/@me/channels"))).toHaveLength(1)
  })
})

describe("settings", () => {
  it("take the token from DISCORD_BOT_TOKEN and check allowFrom", () => {
    expect(() => discord({ config: {}, env: {} })).toThrow(/botToken/)
    expect(discord({ config: { allowFrom: "1, 2\n3" }, env: { DISCORD_BOT_TOKEN: "x" } })).toHaveProperty("realtime")
    expect(() => discord({ config: { botToken: "x", allowFrom: "@ada" }, env: {} })).toThrow(/not @ada/)
  })
})

import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import matrix from "../src/channel.js"
import { SYNC_DATA_TYPE } from "../src/sync.js"
import { type FakeHomeserver, startFakeHomeserver } from "./fake-homeserver.js"

const OWNER = "@ada:fake.test"
const STRANGER = "@eve:elsewhere.test"

const waitUntil = async (check: () => boolean, what = "condition", timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met in time`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

let fake: FakeHomeserver
beforeEach(async () => {
  fake = await startFakeHomeserver()
})
afterEach(async () => {
  await fake.close()
})

const makeContext = (config: Record<string, unknown>) => {
  const received: Array<InboundMessage> = []
  const answers: Array<{ conversationId: string; approvalId: string; approved: boolean }> = []
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
    answerApproval: async (answer: { conversationId: string; approvalId: string; approved: boolean }) => {
      answers.push(answer)
    },
    fetch,
  } as unknown as ChannelContext
  return { context, received, answers, logs, controller }
}

const configOf = (extra: Record<string, unknown> = {}) => ({
  homeserverUrl: fake.homeserverUrl,
  accessToken: fake.token,
  allowFrom: OWNER,
  ...extra,
})

const run = (extra: Record<string, unknown> = {}) => {
  const config = configOf(extra)
  const channel = matrix({ config, env: {} }) as ChannelDefinition
  const made = makeContext(config)
  const started = channel.realtime!.start(made.context)
  const stop = async () => {
    made.controller.abort()
    await started
  }
  return { channel, ...made, started, stop }
}

/** Waits until the channel holds a long poll open (it has handled everything before). */
const idle = () => waitUntil(() => fake.waiting() > 0, "a long poll waiting")

describe("sync", () => {
  it("joins a DM invite from an allowed sender only, records it in m.direct, and passes the owner's messages on", async () => {
    const { received, logs, stop } = run()
    const mine = fake.invite({ from: OWNER })
    const theirs = fake.invite({ from: STRANGER })
    await waitUntil(() => fake.joined(mine), "joined")
    await idle()
    expect(fake.joined(theirs)).toBe(false)
    expect(fake.accountData.get("m.direct")).toEqual({ [OWNER]: [mine] })
    expect(logs.some((entry) => JSON.stringify(entry.data).includes(STRANGER))).toBe(true)
    fake.message(mine, OWNER, "> <@aide:fake.test> earlier answer\n\nhello **you**", {
      "m.relates_to": { "m.in_reply_to": { event_id: "$x" } },
    })
    fake.message(mine, OWNER, "a notice is never answered", { msgtype: "m.notice" })
    fake.message(mine, OWNER, "second")
    await waitUntil(() => received.length === 2, "received")
    expect(received).toEqual([
      { conversationId: mine, text: "hello **you**", sender: { id: OWNER }, group: false },
      { conversationId: mine, text: "second", sender: { id: OWNER }, group: false },
    ])
    await stop()
  })

  it("with pairing on, also joins a stranger's direct invite (the gateway decides whether to answer)", async () => {
    const { stop } = run({ pairing: true })
    const direct = fake.invite({ from: STRANGER, isDirect: true })
    const group = fake.invite({ from: STRANGER, isDirect: false })
    await waitUntil(() => fake.joined(direct), "joined")
    await idle()
    expect(fake.joined(group)).toBe(false)
    await stop()
  })

  it("does not answer history on a first start, and keeps `since` on the homeserver across a restart", async () => {
    const room = fake.roomWith(OWNER)
    fake.message(room, OWNER, "old, before Aide")
    const first = run()
    await waitUntil(() => fake.accountData.has(SYNC_DATA_TYPE), "since saved")
    fake.message(room, OWNER, "one")
    await waitUntil(() => first.received.length === 1, "one")
    await idle()
    await first.stop()
    fake.message(room, OWNER, "while stopped")
    // A new instance (a restart, or another replica): only what it has not handled.
    const second = run()
    await waitUntil(() => second.received.length === 1, "after restart")
    await idle()
    expect([...first.received, ...second.received].map((message) => message.text)).toEqual(["one", "while stopped"])
    expect(fake.syncs[0]).toEqual({ since: null, timeout: 0 })
    await second.stop()
  })

  it("rejects with a readable reason when the homeserver refuses the token", async () => {
    const config = configOf({ accessToken: "wrong" })
    const channel = matrix({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await expect(channel.realtime!.start(context)).rejects.toThrow(
      "matrix: the homeserver refused the access token (M_UNKNOWN_TOKEN): check accessToken",
    )
  })
})

describe("replies and approvals", () => {
  it("sends Markdown as m.notice with an HTML formatted_body, split at 6,000 characters", async () => {
    const room = fake.roomWith(OWNER)
    const config = configOf()
    const channel = matrix({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    const text = `# Title\n\n**bold** <script> & \`code\`\n\n${"- item\n".repeat(10)}\n${"word ".repeat(2000)}\n\n\`\`\`js\nlet a = "<b>"\n\`\`\``
    await channel.send!({ conversationId: room, text, approvals: [] }, context)
    const sent = fake.sent()
    // The 10,000 characters of words do not fit one message: cut at a paragraph, then a word.
    expect(sent).toHaveLength(3)
    for (const event of sent) {
      expect(event.content.msgtype).toBe("m.notice")
      expect(event.content.format).toBe("org.matrix.custom.html")
      expect(event.content.body.length).toBeLessThanOrEqual(6000)
    }
    expect(sent[0]!.content.formatted_body).toContain(
      "<h1>Title</h1><p><strong>bold</strong> &lt;script&gt; &amp; <code>code</code></p><ul><li>item</li>",
    )
    expect(sent[2]!.content.formatted_body).toContain(
      '<pre><code class="language-js">let a = &quot;&lt;b&gt;&quot;</code></pre>',
    )
    expect(
      sent
        .map((event) => event.content.body)
        .join("")
        .replace(/\s/g, ""),
    ).toBe(text.replace(/\s/g, ""))
  })

  it("offers an approval with the bot's ✅ and ❌, and turns the owner's reaction into answerApproval", async () => {
    const { channel, context, answers, stop } = run()
    const room = fake.invite({ from: OWNER })
    await waitUntil(() => fake.joined(room), "joined")
    await channel.send!(
      {
        conversationId: room,
        text: "",
        approvals: [{ approvalId: "ap-7", toolName: "shell", input: { cmd: "ls <x>" } }],
      },
      context,
    )
    const [approval] = fake.sent()
    expect(approval!.content["org.aide.approval"]).toEqual({ id: "ap-7" })
    expect(approval!.content.formatted_body).toContain("<code>shell</code>")
    expect(approval!.content.formatted_body).toContain("ls &lt;x&gt;")
    expect(
      fake
        .sent("m.reaction")
        .map((event) => [event.content["m.relates_to"].event_id, event.content["m.relates_to"].key]),
    ).toEqual([
      [approval!.event_id, "✅"],
      [approval!.event_id, "❌"],
    ])
    const other = fake.message(room, OWNER, "not an approval")
    fake.react(room, OWNER, other, "✅")
    fake.react(room, OWNER, approval!.event_id, "❌\uFE0F")
    await waitUntil(() => answers.length === 1, "answered")
    await idle()
    expect(answers).toEqual([{ conversationId: room, approvalId: "ap-7", approved: false, sender: { id: OWNER } }])
    await stop()
  })
})

describe("failures", () => {
  const sender = () => {
    const room = fake.roomWith(OWNER)
    const config = configOf()
    return { room, channel: matrix({ config, env: {} }) as ChannelDefinition, ...makeContext(config) }
  }

  it("honours M_LIMIT_EXCEEDED's retry_after_ms, and Retry-After without it", async () => {
    const { room, channel, context } = sender()
    fake.control.forced429 = 1
    fake.control.retryAfterMs = 200
    let began = Date.now()
    await channel.send!({ conversationId: room, text: "one", approvals: [] }, context)
    expect(Date.now() - began).toBeGreaterThanOrEqual(190)
    fake.control.forced429 = 1
    fake.control.retryAfterMs = undefined // Retry-After: 1
    began = Date.now()
    await channel.send!({ conversationId: room, text: "two", approvals: [] }, context)
    expect(Date.now() - began).toBeGreaterThanOrEqual(990)
    expect(fake.sent().map((event) => event.content.body)).toEqual(["one", "two"])
  })

  it("never duplicates: a lost answer is retried with the same transaction id, and so is Aide's resend", async () => {
    const { room, channel, context } = sender()
    fake.control.lostResponses = 1
    await channel.send!({ conversationId: room, text: "exactly once", approvals: [] }, context)
    expect(fake.sent().map((event) => event.content.body)).toEqual(["exactly once"])
    const long = {
      conversationId: room,
      text: `${"a ".repeat(2900)}\n\n${"b ".repeat(2900)}\n\n${"c ".repeat(2900)}`,
      approvals: [],
    }
    fake.control.lostResponses = 1
    fake.control.forced429 = 1
    fake.control.forced429From = 2 // once "a" is made: its retry meets the 429
    fake.control.retryAfterMs = 120_000 // longer than the channel waits: this attempt fails with "a" made
    await expect(channel.send!(long, context)).rejects.toThrow(/rate limited/)
    await channel.send!(long, context)
    expect(fake.sent().map((event) => event.content.body[0])).toEqual(["e", "a", "b", "c"])
  })

  it("tries again when Aide's broker refuses a fetch (its per-plugin limits), even a non-idempotent one", async () => {
    const config = configOf()
    const channel = matrix({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    let refusals = 3
    const brokered = {
      ...context,
      fetch: (async (...args: Parameters<typeof fetch>) => {
        if (refusals-- > 0) throw new Error("fetch refused: rate limited (10 a second); try again later")
        return fetch(...args)
      }) as typeof fetch,
    }
    // whoami, m.direct and createRoom (a POST) each meet a refusal first.
    await channel.notify!({ subject: "s", body: "b", threadId: null }, brokered)
    expect(fake.created).toHaveLength(1)
    expect(fake.sent().map((event) => event.content.body)).toEqual(["s\n\nb"])
  })

  it("notifies the owner in a DM room it opens once and records in m.direct", async () => {
    const config = configOf()
    const channel = matrix({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await channel.notify!({ subject: "Daily <report>", body: "All *good*", threadId: null }, context)
    await channel.notify!({ subject: "Again", body: "Still good", threadId: null }, context)
    expect(fake.created).toEqual([{ roomId: expect.any(String), invite: [OWNER] }])
    const roomId = fake.created[0]!.roomId
    expect(fake.accountData.get("m.direct")).toEqual({ [OWNER]: [roomId] })
    const [first] = fake.sent()
    expect(first!.content.formatted_body).toBe("<h3>Daily &lt;report&gt;</h3><p>All <em>good</em></p>")
    expect(fake.sent()).toHaveLength(2)
  })
})

describe("settings", () => {
  it("need the homeserver and a token (or MATRIX_ACCESS_TOKEN), and full user ids in allowFrom", () => {
    expect(() => matrix({ config: { accessToken: "x" }, env: {} })).toThrow(/homeserverUrl/)
    expect(() => matrix({ config: { homeserverUrl: "https://m.example" }, env: {} })).toThrow(/accessToken/)
    const ok = matrix({
      config: { homeserverUrl: "https://m.example", allowFrom: OWNER },
      env: { MATRIX_ACCESS_TOKEN: "t" },
    })
    expect(ok).toHaveProperty("realtime")
    expect(() =>
      matrix({ config: { homeserverUrl: "https://m.example", accessToken: "t", allowFrom: "ada" }, env: {} }),
    ).toThrow(/not ada/)
  })
})

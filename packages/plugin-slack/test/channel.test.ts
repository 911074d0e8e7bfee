import type { ChannelDefinition } from "@aide/plugin"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import slack from "../src/channel.js"
import { type FakeSlack, startFakeSlack } from "./fake-slack.js"
import { makeContext, startWebhookFront, waitUntil } from "./support.js"

const OWNER = "UOWNER1"
const STRANGER = "USTRANGE"

let fake: FakeSlack
beforeAll(async () => {
  fake = await startFakeSlack({ ackTimeoutMs: 300 })
})
afterAll(async () => {
  await fake.close()
})
afterEach(() => {
  fake.posted.length = 0
  fake.updates.length = 0
  fake.calls.length = 0
})

const configOf = (extra: Record<string, unknown> = {}) => ({
  botToken: fake.botToken,
  appToken: fake.appToken,
  allowFrom: OWNER,
  apiRoot: fake.apiRoot,
  ...extra,
})

const socketMode = async (extra: Record<string, unknown> = {}) => {
  const config = configOf(extra)
  const channel = slack({ config, env: {} }) as ChannelDefinition
  const run = makeContext(config)
  const before = fake.connections()
  const started = channel.realtime!.start(run.context)
  await waitUntil(() => fake.connections() > before && fake.openSockets() > 0)
  const stop = async () => {
    run.controller.abort()
    await started
  }
  return { channel, ...run, started, stop }
}

const dm = (user: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  channel: `D${user.slice(1)}`,
  channel_type: "im",
  user,
  text,
  ts: "1700000000.000100",
  ...extra,
})

describe("Socket Mode", () => {
  it("acks each envelope and passes a DM on with its sender, the DM channel as the conversation", async () => {
    const { received, stop } = await socketMode()
    const envelope = fake.pushEvent(dm(OWNER, "hello &lt;there&gt; &amp; you"))
    await waitUntil(() => received.length === 1)
    await waitUntil(() => fake.acked.has(envelope))
    expect(received[0]).toEqual({
      conversationId: "DOWNER1",
      text: "hello <there> & you",
      sender: { id: OWNER },
      group: false,
    })
    await stop()
  })

  it("passes strangers on too (the gateway's allowlist decides), and skips bots, edits and itself", async () => {
    const { received, stop } = await socketMode()
    fake.pushEvent(dm(STRANGER, "who are you"))
    fake.pushEvent(dm(OWNER, "from a bot", { bot_id: "B9" }))
    fake.pushEvent(dm(OWNER, "edited", { subtype: "message_changed" }))
    fake.pushEvent(dm(fake.botUserId, "my own echo"))
    fake.pushEvent(dm(OWNER, "last"))
    await waitUntil(() => received.length === 2)
    expect(received.map((message) => [message.sender?.id, message.text])).toEqual([
      [STRANGER, "who are you"],
      [OWNER, "last"],
    ])
    await stop()
  })

  it("handles an event Slack redelivers (retry_attempt, retry_reason) once", async () => {
    const { received, stop } = await socketMode()
    fake.pushEvent(dm(OWNER, "only once"), { retries: 2 })
    fake.pushEvent(dm(OWNER, "after"))
    await waitUntil(() => received.length === 2)
    await new Promise((resolve) => setTimeout(resolve, 100)) // the forced redeliveries are 10 ms apart
    expect(received.map((message) => message.text)).toEqual(["only once", "after"])
    await stop()
  })

  it("answers mentions in channels only with groups on, in the mention's thread, without the mention", async () => {
    const off = await socketMode()
    fake.pushEvent({ type: "app_mention", channel: "C1", user: OWNER, text: `<@${fake.botUserId}> hi`, ts: "1.000001" })
    fake.pushEvent(dm(OWNER, "marker"))
    await waitUntil(() => off.received.length === 1)
    expect(off.received[0]!.text).toBe("marker")
    expect(off.logs.some((entry) => entry.message.includes("groups are off"))).toBe(true)
    await off.stop()

    const on = await socketMode({ groups: true })
    fake.pushEvent({
      type: "message",
      channel: "C1",
      channel_type: "channel",
      user: OWNER,
      text: "no mention",
      ts: "1.000002",
    })
    fake.pushEvent({
      type: "app_mention",
      channel: "C1",
      user: OWNER,
      text: `<@${fake.botUserId}> deploy it`,
      ts: "1.000003",
    })
    fake.pushEvent({
      type: "app_mention",
      channel: "C1",
      user: OWNER,
      text: `and <@${fake.botUserId}> then?`,
      ts: "1.000009",
      thread_ts: "1.000003",
    })
    await waitUntil(() => on.received.length === 2)
    expect(on.received).toEqual([
      { conversationId: "C1:1.000003", text: "deploy it", sender: { id: OWNER }, group: true, mentioned: true },
      { conversationId: "C1:1.000003", text: "and  then?", sender: { id: OWNER }, group: true, mentioned: true },
    ])
    await on.stop()
  })

  it("reconnects with a fresh URL on a refresh request and after a dropped connection", async () => {
    const { received, stop } = await socketMode()
    const before = fake.connections()
    fake.refresh()
    await waitUntil(() => fake.connections() === before + 1 && fake.openSockets() === 1)
    fake.pushEvent(dm(OWNER, "after refresh"))
    await waitUntil(() => received.length === 1)
    fake.drop()
    await waitUntil(() => fake.connections() === before + 2 && fake.openSockets() === 1)
    fake.pushEvent(dm(OWNER, "after drop"))
    await waitUntil(() => received.length === 2)
    const opens = fake.calls.filter((call) => call.method === "apps.connections.open").length
    expect(opens).toBeGreaterThanOrEqual(3)
    await stop()
  })

  it("stops promptly when the channel's signal aborts", async () => {
    const { stop } = await socketMode()
    const begun = Date.now()
    await stop()
    expect(Date.now() - begun).toBeLessThan(1_000)
    await waitUntil(() => fake.openSockets() === 0)
  })

  it("rejects when Slack refuses the app-level token (a bot token there is not_allowed_token_type)", async () => {
    const config = configOf({ appToken: fake.botToken })
    const channel = slack({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await expect(channel.realtime!.start(context)).rejects.toThrow(/not_allowed_token_type/)
  })
})

describe("replies", () => {
  const sender = () => {
    const config = configOf()
    const channel = slack({ config, env: {} }) as ChannelDefinition
    return { channel, ...makeContext(config) }
  }

  it("posts in the conversation's thread: a DM at its top level, a channel conversation in its thread", async () => {
    const { channel, context } = sender()
    await channel.send!(
      { conversationId: "DOWNER1", text: "**done** see [docs](https://x.y/a|b)", approvals: [] },
      context,
    )
    await channel.send!({ conversationId: "C1:1.000003", text: "in thread <!channel>", approvals: [] }, context)
    expect(fake.posted.map(({ channel: id, thread_ts, text }) => ({ id, thread_ts, text }))).toEqual([
      { id: "DOWNER1", thread_ts: undefined, text: "*done* see <https://x.y/a%7Cb|docs>" },
      { id: "C1", thread_ts: "1.000003", text: "in thread &lt;!channel&gt;" },
    ])
  })

  it("splits a long answer under 4,000 characters on boundaries, code blocks closed and reopened", async () => {
    const { channel, context } = sender()
    const prose = "A sentence of prose that goes on. ".repeat(150)
    const code = Array.from({ length: 200 }, (_, i) => `const line${i} = ${i} // <tag> & more`).join("\n")
    await channel.send!(
      { conversationId: "DOWNER1", text: `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThe end.`, approvals: [] },
      context,
    )
    expect(fake.posted.length).toBeGreaterThan(2)
    for (const message of fake.posted) {
      expect(message.text.length).toBeLessThanOrEqual(4000)
      expect((message.text.match(/```/g) ?? []).length % 2).toBe(0)
    }
    const all = fake.posted.map((message) => message.text).join("\n")
    expect(all).toContain("const line199 = 199 // &lt;tag&gt; &amp; more")
    expect(all).not.toContain("```ts")
    expect(fake.posted.at(-1)!.text).toContain("The end.")
  })

  it("waits out a 429's Retry-After and posts once", async () => {
    const { channel, context } = sender()
    fake.failNext("chat.postMessage", { status: 429, retryAfter: 1 })
    const begun = Date.now()
    await channel.send!({ conversationId: "DOWNER1", text: "after the limit", approvals: [] }, context)
    expect(Date.now() - begun).toBeGreaterThanOrEqual(950)
    expect(fake.posted.map((message) => message.text)).toEqual(["after the limit"])
  })

  it("does not post twice when the answer to a post is lost: it reads the conversation back for its marker", async () => {
    const { channel, context } = sender()
    fake.failNext("chat.postMessage", { kind: "drop-after-post" })
    await channel.send!({ conversationId: "C1:5.000001", text: "exactly once", approvals: [] }, context)
    expect(fake.posted.map((message) => message.text)).toEqual(["exactly once"])
    expect(
      fake.calls.some((call) => call.method === "conversations.replies" && call.args.include_all_metadata === "true"),
    ).toBe(true)
  })

  it("posts again after a 5xx when the read-back shows nothing was posted", async () => {
    const { channel, context } = sender()
    fake.failNext("chat.postMessage", { kind: "500" })
    await channel.send!({ conversationId: "DOWNER1", text: "second try", approvals: [] }, context)
    expect(fake.posted.map((message) => message.text)).toEqual(["second try"])
    expect(fake.calls.filter((call) => call.method === "chat.postMessage")).toHaveLength(2)
  })

  it("when Aide sends a failed reply again, the chunks already posted are not posted twice", async () => {
    const { channel, context } = sender()
    const text = `${"First part. ".repeat(300)}\n\n${"Second part. ".repeat(300)}`
    // The first chunk goes out; the second is refused for good (three 429s in a row).
    for (let i = 0; i < 3; i++) fake.failNext("chat.postMessage", { status: 429, retryAfter: 0 }, i === 0 ? 1 : 0)
    await expect(channel.send!({ conversationId: "DOWNER1", text, approvals: [] }, context)).rejects.toThrow(
      /ratelimited/,
    )
    expect(fake.posted).toHaveLength(1)
    await channel.send!({ conversationId: "DOWNER1", text, approvals: [] }, context)
    const texts = fake.posted.map((message) => message.text)
    expect(texts).toHaveLength(2)
    expect(texts[0]).toMatch(/^First part\./)
    expect(texts[1]).toMatch(/^Second part\./)
  })
})

describe("approvals and notifications", () => {
  it("offers Block Kit buttons in the thread and turns the press (block_actions) into answerApproval", async () => {
    const { channel, context, answers, stop } = await socketMode()
    await channel.send!(
      {
        conversationId: "DOWNER1",
        text: "I need to run a tool.",
        approvals: [{ approvalId: "aitxt-abc123", toolName: "shell<rm>", input: { cmd: "rm -rf <dir> && ls" } }],
      },
      context,
    )
    const message = fake.posted[1]!
    const [section, actions] = message.blocks!
    expect(section.text.text).toContain("`shell&lt;rm&gt;`")
    expect(section.text.text).toContain("rm -rf &lt;dir&gt; &amp;&amp; ls")
    expect(actions.elements.map((button: any) => button.action_id)).toEqual(["aide_approve", "aide_deny"])
    fake.pushInteraction({
      type: "block_actions",
      user: { id: OWNER },
      container: { type: "message", message_ts: message.ts, channel_id: "DOWNER1" },
      channel: { id: "DOWNER1" },
      message: { ts: message.ts, blocks: message.blocks },
      actions: [{ ...actions.elements[1], block_id: "b1", action_ts: "1.2" }],
    })
    await waitUntil(() => answers.length === 1)
    expect(answers[0]).toEqual({ conversationId: "DOWNER1", approvalId: "aitxt-abc123", approved: false })
    await waitUntil(() => fake.updates.length === 1)
    const update = fake.updates[0]!
    expect(update.ts).toBe(message.ts)
    expect(JSON.parse(update.blocks!).some((block: any) => block.type === "actions")).toBe(false)
    expect(update.text).toContain("Denied")
    await stop()
  })

  it("in a channel, ignores a press from someone not in allowFrom", async () => {
    const { channel, context, answers, logs, stop } = await socketMode({ groups: true })
    await channel.send!(
      { conversationId: "C1:1.5", text: "", approvals: [{ approvalId: "ap-1", toolName: "t", input: {} }] },
      context,
    )
    const message = fake.posted[0]!
    expect(message.thread_ts).toBe("1.5")
    const press = (user: string) =>
      fake.pushInteraction({
        type: "block_actions",
        user: { id: user },
        container: { type: "message", message_ts: message.ts, channel_id: "C1" },
        message: { ts: message.ts, blocks: message.blocks },
        actions: [message.blocks![1].elements[0]],
      })
    press(STRANGER)
    await waitUntil(() => logs.some((entry) => entry.message.includes("not in allowFrom")))
    press(OWNER)
    await waitUntil(() => answers.length === 1)
    expect(answers).toEqual([{ conversationId: "C1:1.5", approvalId: "ap-1", approved: true }])
    await stop()
  })

  it("notifies the owner (the first of allowFrom) in their DM, opened with conversations.open", async () => {
    const config = configOf({ allowFrom: `${OWNER}, UOTHER` })
    const channel = slack({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await channel.notify!({ subject: "Daily <digest>", body: "All **good**.", threadId: null }, context)
    expect(fake.calls.find((call) => call.method === "conversations.open")?.args.users).toBe(OWNER)
    expect(fake.posted.map(({ channel: id, text }) => ({ id, text }))).toEqual([
      { id: "DOWNER1", text: "*Daily &lt;digest&gt;*\n\nAll *good*." },
    ])
  })

  it("refuses to notify without an owner, with a reason", async () => {
    const config = configOf({ allowFrom: "" })
    const channel = slack({ config, env: {} }) as ChannelDefinition
    const { context } = makeContext(config)
    await expect(channel.notify!({ subject: "s", body: "b", threadId: null }, context)).rejects.toThrow(/allowFrom/)
  })
})

describe("Events API (behind the kernel's webhook verification)", () => {
  const events = async () => {
    const config = configOf({ mode: "events", signingSecret: fake.signingSecret })
    const channel = slack({ config, env: {} }) as ChannelDefinition
    const run = makeContext(config)
    const front = await startWebhookFront(channel, run.context, fake.signingSecret)
    return { channel, ...run, front }
  }

  it("answers Slack's url_verification challenge", async () => {
    const { front } = await events()
    const body = JSON.stringify({
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    })
    expect(await fake.deliver(front.url, body)).toEqual({
      status: 200,
      text: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    })
    await front.close()
  })

  it("verifies v0 signatures and the 5-minute window; a retry (X-Slack-Retry-Num) is not answered twice", async () => {
    const { front, received } = await events()
    const body = JSON.stringify(fake.eventCallback(dm(OWNER, "over http"), "Ev0001"))
    expect((await fake.deliver(front.url, body)).status).toBe(200)
    // Slack's retry of the same event: signed anew, with its retry headers.
    const retry = await fake.deliver(front.url, body, {
      retryNum: 1,
      retryReason: "http_timeout",
      timestamp: Math.floor(Date.now() / 1000) - 1,
    })
    expect(retry.status).toBe(200)
    expect(received.map((message) => message.text)).toEqual(["over http"])
    const stale = await fake.deliver(front.url, body, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    expect(stale).toEqual({ status: 401, text: JSON.stringify({ error: "stale_timestamp" }) })
    const forged = await fetch(front.url, {
      method: "POST",
      headers: {
        "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000)),
        "x-slack-signature": `v0=${"0".repeat(64)}`,
      },
      body,
    })
    expect(forged.status).toBe(401)
    expect(received).toHaveLength(1)
    await front.close()
  })

  it("takes interactions as Slack posts them (form-encoded payload)", async () => {
    const { front, answers } = await events()
    const value = JSON.stringify({ c: "DOWNER1", a: "ap-9" })
    const payload = {
      type: "block_actions",
      user: { id: OWNER },
      container: { type: "message", message_ts: "1.1", channel_id: "DOWNER1" },
      actions: [{ action_id: "aide_approve", value, type: "button" }],
    }
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString()
    const answer = await fake.deliver(front.url, body, { contentType: "application/x-www-form-urlencoded" })
    expect(answer.status).toBe(200)
    expect(answers).toEqual([{ conversationId: "DOWNER1", approvalId: "ap-9", approved: true }])
    await front.close()
  })
})

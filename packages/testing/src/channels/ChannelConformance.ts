import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RecordedRequest, Turn } from "../Turn.js"
import { type ChannelDriver, userOf } from "./ChannelDriver.js"
import { type ChannelHarness, type ChannelHarnessOptions, startChannel } from "./ChannelHarness.js"

/** The checks of the kit, each a vitest test of that name; `skip` some by name. */
export const conformanceChecks = [
  "owner-only",
  "pairing",
  "one thread per conversation",
  "approvals",
  "notifications",
  "splitting",
  "reconnect",
  "no duplicate after a retried delivery",
] as const
export type ConformanceCheck = (typeof conformanceChecks)[number]

export interface ChannelConformanceOptions {
  /** The plugin folder (the one holding `aide.plugin.json`). */
  readonly plugin: string
  readonly driver: ChannelDriver
  /** The channel to drive, when the plugin has several. */
  readonly channelId?: string
  /** Checks not to run (say why in your test); `reconnect` and the retry check are skipped by themselves without their driver method. */
  readonly skip?: ReadonlyArray<ConformanceCheck>
  /** How long to wait for each answer on the platform; default 15 s. */
  readonly timeoutMs?: number
  /** The loader's options (egress…); default: HTTP to loopback allowed. */
  readonly loader?: ChannelHarnessOptions["loader"]
}

/** Polls `check` until it answers something other than undefined. */
const eventually = async <A>(what: string, check: () => Promise<A | undefined>, timeoutMs: number): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`conformance: ${what} (waited ${timeoutMs} ms)`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The last user message of a model request, as text. */
const lastUserText = (request: RecordedRequest) => {
  const user = request.body.messages.filter((message) => message.role === "user").at(-1)
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "")
}

/** A fresh word per test, so that scripted turns and answers never cross tests. */
let counter = 0
const token = (name: string) => `${name}${++counter}x${Math.random().toString(36).slice(2, 8)}`

/**
 * Registers the channel conformance suite (vitest `describe`/`it`): the checks every channel of
 * Aide passes, run against a real kernel with the plugin loaded and its platform faked by
 * `driver`. One kernel and one fake platform for the whole suite; the plugin's settings get
 * `allowFrom: <userId(0)>` and `pairing: true` added.
 *
 * - owner-only: a stranger's message reaches neither the model nor the platform (nothing is
 *   sent back); a group message is not answered (groups are off).
 * - pairing: the stranger's pairing request is listed; approved, their next message is answered.
 * - one thread per conversation: two messages of a conversation share one Aide thread, another
 *   conversation gets its own.
 * - approvals: a tool call needing approval is offered on the platform; approving runs the tool
 *   and the answer follows; denying does not run it.
 * - notifications: an inbox message addressed to the channel reaches the owner, marked `sent`.
 * - splitting: an answer of 2.5 × `platformLimit` arrives in messages within the limit, whole.
 * - reconnect (with `dropConnection`): after the platform drops the connection, messages are
 *   answered again.
 * - no duplicate after a retried delivery (with `redeliverLast`): a redelivered message is
 *   answered once.
 *
 * @example
 * runChannelConformance({ plugin: new URL("..", import.meta.url).pathname, driver: telegramDriver() })
 */
export const runChannelConformance = (options: ChannelConformanceOptions): void => {
  const { driver } = options
  const timeoutMs = options.timeoutMs ?? 15_000
  const owner = userOf(driver, 0)
  const stranger = userOf(driver, 1)
  const ownerChat = driver.directConversation(owner)
  const strangerChat = driver.directConversation(stranger)
  let channel: ChannelHarness
  const skipped = new Set(options.skip ?? [])
  const check = (name: ConformanceCheck, available: boolean, body: () => Promise<void>) =>
    (skipped.has(name) || !available ? it.skip : it)(name, body, timeoutMs * 3)

  /** Messages posted in `conversationId` since `from` (an index in `outbound()`). */
  const postedIn = async (conversationId: string, from = 0) =>
    (await driver.outbound()).slice(from).filter((message) => message.conversationId === conversationId)
  /** Waits for a message in the conversation containing `text`, after `from`. */
  const answerIn = (conversationId: string, text: string, from = 0) =>
    eventually(
      `an answer containing "${text}" in conversation ${conversationId}`,
      async () => (await postedIn(conversationId, from)).find((message) => message.text.includes(text)),
      timeoutMs,
    )
  /** Scripts the model's answer to the message containing `word`. */
  const answer = (word: string, ...turns: ReadonlyArray<Turn>) =>
    channel.model.script(
      ...turns.map((turn) => ({ ...turn, match: (request: RecordedRequest) => lastUserText(request).includes(word) })),
    )

  describe(`channel conformance: ${options.plugin}`, () => {
    beforeAll(async () => {
      const { config, env } = await driver.start()
      channel = await startChannel({
        directory: options.plugin,
        config: { ...config, allowFrom: owner, pairing: true },
        ...(env === undefined ? {} : { env }),
        ...(options.channelId === undefined ? {} : { channelId: options.channelId }),
        ...(options.loader === undefined ? {} : { loader: options.loader }),
      })
    }, 60_000)
    afterAll(async () => {
      await channel?.close()
      await driver.stop()
    }, 30_000)

    check("owner-only", true, async () => {
      const secret = token("stranger")
      const hello = token("owner")
      answer(hello, { text: `Hi owner ${hello}` })
      const before = (await driver.outbound()).length
      await driver.sendAsUser({ senderId: stranger, conversationId: strangerChat, text: `let me in ${secret}` })
      if (driver.groupConversation !== undefined) {
        await driver.sendAsUser({
          senderId: owner,
          conversationId: driver.groupConversation,
          text: `in the group ${secret}`,
          group: true,
          mentioned: true,
        })
      }
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `hello ${hello}` })
      await answerIn(ownerChat, hello, before)
      // The stranger's pairing request is stored before the owner's answer could come back.
      await eventually(
        "the stranger's pairing request",
        async () => {
          const { pairings } = await channel.pairings()
          return pairings.find((request) => request.senderId === stranger)
        },
        timeoutMs,
      )
      expect(await postedIn(strangerChat, before)).toEqual([])
      if (driver.groupConversation !== undefined) expect(await postedIn(driver.groupConversation, before)).toEqual([])
      expect(channel.model.requests.some((request) => JSON.stringify(request.body).includes(secret))).toBe(false)
    })

    check("pairing", true, async () => {
      const { pairings } = await channel.pairings()
      let request = pairings.find((entry) => entry.senderId === stranger)
      if (request === undefined) {
        await driver.sendAsUser({ senderId: stranger, conversationId: strangerChat, text: "let me in" })
        request = await eventually(
          "a pairing request",
          async () => {
            const listed = await channel.pairings()
            return listed.pairings.find((entry) => entry.senderId === stranger)
          },
          timeoutMs,
        )
      }
      expect(request.code).toMatch(/^[A-Z0-9]{8}$/)
      await channel.decidePairing(request.code, true)
      const word = token("paired")
      answer(word, { text: `Welcome ${word}` })
      await driver.sendAsUser({ senderId: stranger, conversationId: strangerChat, text: `thanks ${word}` })
      await answerIn(strangerChat, word)
    })

    check("one thread per conversation", true, async () => {
      const first = token("first")
      const second = token("second")
      const other = token("other")
      answer(first, { text: `One ${first}` })
      answer(second, { text: `Two ${second}` })
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `first ${first}` })
      await answerIn(ownerChat, first)
      const thread = await channel.threadOf(ownerChat)
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `second ${second}` })
      await answerIn(ownerChat, second)
      expect(thread).toBeDefined()
      expect(await channel.threadOf(ownerChat)).toBe(thread)
      // The second message was sent to the model with the first one's history.
      const asked = channel.model.requests.find((request) => lastUserText(request).includes(second))
      expect(JSON.stringify(asked?.body.messages)).toContain(first)
      // Another user's direct conversation is a thread of its own (the pairing check let them in).
      if (!skipped.has("pairing")) {
        answer(other, { text: `Three ${other}` })
        await driver.sendAsUser({ senderId: stranger, conversationId: strangerChat, text: `other ${other}` })
        await answerIn(strangerChat, other)
        const otherThread = await channel.threadOf(strangerChat)
        expect(otherThread).toBeDefined()
        expect(otherThread).not.toBe(thread)
      }
    })

    check("approvals", true, async () => {
      for (const approved of [true, false]) {
        const word = token(approved ? "approve" : "deny")
        const path = `${word}.txt`
        answer(
          word,
          { toolCalls: [{ name: "probe_delete_file", arguments: { path } }] },
          { text: approved ? `Deleted ${word}` : `Left alone ${word}` },
        )
        const before = (await driver.outbound()).length
        await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `delete ${word}` })
        const offered = await eventually(
          "an approval offered on the platform",
          async () => (await postedIn(ownerChat, before)).find((message) => (message.approvals?.length ?? 0) > 0),
          timeoutMs,
        )
        const approvalId = offered.approvals?.[0]?.approvalId
        await driver.clickApproval({
          conversationId: ownerChat,
          senderId: owner,
          approved,
          ...(approvalId === undefined ? {} : { approvalId }),
        })
        await answerIn(ownerChat, approved ? `Deleted ${word}` : `Left alone ${word}`, before)
        const ran = channel.probeExecutions.some((input) => JSON.stringify(input).includes(path))
        expect(ran).toBe(approved)
      }
    })

    check("notifications", true, async () => {
      const subject = token("subject")
      const id = await channel.notify(`Digest ${subject}`, "Your digest is **ready**.")
      const to = driver.notificationConversation ?? ownerChat
      await answerIn(to, subject)
      await eventually(
        "the inbox message marked sent",
        async () => ((await channel.inboxStatus(id)) === "sent" ? true : undefined),
        timeoutMs,
      )
    })

    check("splitting", true, async () => {
      const word = token("long")
      const limit = driver.platformLimit
      const paragraph = (n: number) => `${word}-${n} ${"lorem ipsum dolor sit amet ".repeat(8).trim()}.`
      const paragraphs: Array<string> = []
      while (paragraphs.join("\n\n").length < limit * 2.5) paragraphs.push(paragraph(paragraphs.length))
      answer(word, { text: paragraphs.join("\n\n") })
      const before = (await driver.outbound()).length
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `tell me a lot ${word}` })
      const last = `${word}-${paragraphs.length - 1} `
      await answerIn(ownerChat, last, before)
      const parts = (await postedIn(ownerChat, before)).filter((message) => message.text.includes(word))
      expect(parts.length).toBeGreaterThanOrEqual(3)
      for (const part of parts) expect(part.text.length).toBeLessThanOrEqual(limit)
      const seen = parts.flatMap((part) =>
        [...part.text.matchAll(new RegExp(`${word}-(\\d+) `, "g"))].map((m) => Number(m[1])),
      )
      expect(seen).toEqual(paragraphs.map((_, index) => index))
    })

    check("reconnect", driver.dropConnection !== undefined, async () => {
      await driver.dropConnection!()
      const word = token("back")
      answer(word, { text: `Back ${word}` })
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `still there ${word}` })
      await answerIn(ownerChat, word)
      expect((await channel.connection())?.state ?? "connected").toBe("connected")
    })

    check("no duplicate after a retried delivery", driver.redeliverLast !== undefined, async () => {
      const word = token("once")
      answer(word, { text: `Once ${word}` }, { text: `Twice ${word}` })
      const before = (await driver.outbound()).length
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `only once ${word}` })
      await answerIn(ownerChat, word, before)
      await driver.redeliverLast!()
      // A later message's answer proves the redelivery was handled (or dropped) before it.
      const after = token("after")
      answer(after, { text: `After ${after}` })
      await driver.sendAsUser({ senderId: owner, conversationId: ownerChat, text: `next ${after}` })
      await answerIn(ownerChat, after, before)
      const answers = (await postedIn(ownerChat, before)).filter((message) => message.text.includes(word))
      expect(
        answers.filter((message) => message.text.includes(`Once ${word}`) || message.text.includes(`Twice ${word}`)),
      ).toHaveLength(1)
    })
  })
}

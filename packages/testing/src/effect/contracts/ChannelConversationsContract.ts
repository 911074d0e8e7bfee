import { ChannelConversations as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { ChannelConversations } = Module

const at = new Date("2030-01-01T00:00:00.000Z")
const ref = (conversationId: string) => ({ pluginId: "tg", channelId: "bot", conversationId })

/**
 * The contract of `ChannelConversations`: run it on your store's Layer (a fresh store per test).
 *
 * @example
 * channelConversationsContract("MyConversations", MyConversations.layer)
 */
export const channelConversationsContract = (name: string, store: Layer.Layer<Module.ChannelConversations, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)
    describe("a conversation's thread", () => {
      it.effect("the first binding wins; a second first binding keeps it", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          expect(yield* store.threadOf(ref("race"))).toEqual(Option.none())
          expect(yield* store.bind(ref("race"), "t-1", null, at)).toBe("t-1")
          expect(yield* store.bind(ref("race"), "t-2", null, at)).toBe("t-1")
          expect(yield* store.threadOf(ref("race"))).toEqual(Option.some("t-1"))
        }),
      )

      it.effect("a deleted thread is replaced only from the thread that was seen", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          yield* store.bind(ref("swap"), "old", null, at)
          expect(yield* store.bind(ref("swap"), "new", "old", at)).toBe("new")
          expect(yield* store.bind(ref("swap"), "newer", "old", at)).toBe("new")
        }),
      )

      it.effect("conversations of other channels are apart", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          yield* store.bind(ref("42"), "t-tg", null, at)
          yield* store.bind({ pluginId: "tg", channelId: "other", conversationId: "42" }, "t-other", null, at)
          expect(yield* store.threadOf(ref("42"))).toEqual(Option.some("t-tg"))
        }),
      )
    })

    describe("approval ids", () => {
      it.effect("an approval id names its conversation, thread, run and tool call", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          const approval = { approvalId: "a-1", conversation: ref("7"), threadId: "t", runId: "r", toolCallId: "c" }
          yield* store.saveApprovals([approval], at)
          expect(yield* store.approval("a-1")).toEqual(Option.some(approval))
          expect(yield* store.approval("a-2")).toEqual(Option.none())
        }),
      )
    })

    describe("pairing requests and approved senders", () => {
      const hour = 3_600_000
      const request = (code: string, senderId: string, created = at, channelId = "bot") => ({
        pluginId: "tg",
        channelId,
        code,
        senderId,
        senderName: senderId === "s-1" ? "Ada" : null,
        createdAt: created,
        expiresAt: new Date(created.getTime() + hour),
      })

      it.effect("one request per sender and channel, at most maxPending per channel", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          expect(yield* store.requestPairing(request("AAAA1111", "s-1"), 2)).toBe("created")
          expect(yield* store.requestPairing(request("BBBB2222", "s-1"), 2)).toBe("pending")
          expect(yield* store.requestPairing(request("CCCC3333", "s-2"), 2)).toBe("created")
          expect(yield* store.requestPairing(request("DDDD4444", "s-3"), 2)).toBe("full")
          expect(yield* store.requestPairing(request("EEEE5555", "s-3", at, "other"), 2)).toBe("created")
          const listed = yield* store.pairings("tg", at)
          expect(listed.map((entry) => entry.code)).toEqual(["AAAA1111", "CCCC3333", "EEEE5555"])
          expect(listed[0]).toEqual(request("AAAA1111", "s-1"))
          expect(yield* store.pairings("other-plugin", at)).toEqual([])
        }),
      )

      it.effect("expired requests are not listed, cannot be answered, and free their place", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          yield* store.requestPairing(request("AAAA1111", "s-1"), 1)
          const later = new Date(at.getTime() + hour)
          expect(yield* store.pairings("tg", later)).toEqual([])
          expect(yield* store.decidePairing("tg", "AAAA1111", true, later)).toEqual(Option.none())
          expect(yield* store.requestPairing(request("BBBB2222", "s-2", later), 1)).toBe("created")
          expect(yield* store.isApproved("tg", "bot", "s-1")).toBe(false)
        }),
      )

      it.effect("approving lets the sender in once; rejecting does not; a code is used once", () =>
        Effect.gen(function* () {
          const store = yield* ChannelConversations
          yield* store.requestPairing(request("AAAA1111", "s-1"), 5)
          yield* store.requestPairing(request("BBBB2222", "s-2"), 5)
          expect(yield* store.isApproved("tg", "bot", "s-1")).toBe(false)
          expect(yield* store.decidePairing("tg", "AAAA1111", true, at)).toEqual(
            Option.some(request("AAAA1111", "s-1")),
          )
          expect(yield* store.decidePairing("tg", "AAAA1111", true, at)).toEqual(Option.none())
          expect(yield* store.decidePairing("tg", "BBBB2222", false, at)).toEqual(
            Option.some(request("BBBB2222", "s-2")),
          )
          expect(yield* store.isApproved("tg", "bot", "s-1")).toBe(true)
          expect(yield* store.isApproved("tg", "other", "s-1")).toBe(false)
          expect(yield* store.isApproved("tg", "bot", "s-2")).toBe(false)
          expect(yield* store.pairings("tg", at)).toEqual([])
          expect(yield* store.approvedSenders("tg")).toEqual([
            { pluginId: "tg", channelId: "bot", senderId: "s-1", senderName: "Ada", approvedAt: at },
          ])
          expect(yield* store.removeSender("tg", "bot", "s-1")).toBe(true)
          expect(yield* store.removeSender("tg", "bot", "s-1")).toBe(false)
          expect(yield* store.isApproved("tg", "bot", "s-1")).toBe(false)
        }),
      )
    })
  })

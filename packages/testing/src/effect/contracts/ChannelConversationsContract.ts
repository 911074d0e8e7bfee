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
  })

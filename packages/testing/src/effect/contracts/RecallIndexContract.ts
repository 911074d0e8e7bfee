import { RecallIndex as Module } from "@aide/kernel/storage"
import { Threads as ThreadsModule } from "@aide/kernel/threads"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { RecallIndex } = Module
const { Threads } = ThreadsModule

/** A thread `id` holding one message per text, ids `${id}-1`…, alternating user and assistant. */
const thread = (id: string, texts: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    yield* threads.ensure(id)
    for (const [n, text] of texts.entries())
      yield* threads.saveMessage(id, {
        id: `${id}-${n + 1}`,
        role: n % 2 === 0 ? "user" : "assistant",
        parts: [{ type: "text", text }],
      })
  })

const everywhere = { excludeThreadId: "elsewhere", limit: 10 }
const messageIds = (hits: ReadonlyArray<Module.RecallHit>) => hits.map((hit) => hit.messageId)

/**
 * The contract of `RecallIndex`, over the `Threads` whose messages it indexes: `stores` provides
 * both (the index must see every message saved, rewritten or deleted through `Threads`, as
 * `SqlRecallIndex` does through triggers on `SqlThreads`' tables). Full-text search of plain
 * words, exclusion of the current thread and of the messages it shares with forks, neighbours,
 * and embeddings by model. `RecallIndex.layerEmpty` does not pass it: it finds nothing, by
 * design. Run it on your Layers (fresh stores per test).
 */
export const recallIndexContract = (
  name: string,
  stores: Layer.Layer<Module.RecallIndex | ThreadsModule.Threads, unknown>,
) =>
  describe(name, () => {
    const it = contractIt(stores)

    it.effect("finds messages holding any of the words, one hit per message, at most limit", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        yield* thread("a", ["my cat is called Pumpernickel", "noted", "the narwhal migrates north"])
        yield* thread("b", ["unrelated chatter about weather"])
        expect(messageIds(yield* recall.searchText(["pumpernickel"], everywhere))).toEqual(["a-1"])
        const both = yield* recall.searchText(["pumpernickel", "narwhal"], everywhere)
        expect(messageIds(both).sort()).toEqual(["a-1", "a-3"])
        expect(both.every((hit) => hit.threadId === "a")).toBe(true)
        expect(yield* recall.searchText(["pumpernickel", "narwhal"], { ...everywhere, limit: 1 })).toHaveLength(1)
        expect(yield* recall.searchText(["absent"], everywhere)).toEqual([])
        expect(yield* recall.searchText([], everywhere)).toEqual([])
      }),
    )

    it.effect("a term is only a word: full-text syntax in it finds nothing and fails nothing", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        yield* thread("a", ['the "quoted" star* NEAR colon: text'])
        for (const term of ['"', "star*", "NEAR(", "colon:", "a | b", "(", "'"])
          expect(yield* recall.searchText([term], everywhere)).toEqual([])
        expect(messageIds(yield* recall.searchText(["near"], everywhere))).toEqual(["a-1"])
      }),
    )

    it.effect("leaves out the current thread and the messages it shares with its forks", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        const threads = yield* Threads
        yield* thread("a", ["the lighthouse keeper", "ok", "another lighthouse story"])
        const fork = yield* threads.fork("a", "a-3")
        yield* threads.saveMessage(fork.thread.id, {
          id: "f-1",
          role: "user",
          parts: [{ type: "text", text: "lighthouse" }],
        })
        // From the fork: a-1 is its own copy, so only a-3 (not copied) is found, in "a".
        const fromFork = yield* recall.searchText(["lighthouse"], { excludeThreadId: fork.thread.id, limit: 10 })
        expect(fromFork.map((hit) => [hit.threadId, hit.messageId])).toEqual([["a", "a-3"]])
        const fromRoot = yield* recall.searchText(["lighthouse"], { excludeThreadId: "a", limit: 10 })
        expect(fromRoot.map((hit) => [hit.threadId, hit.messageId])).toEqual([[fork.thread.id, "f-1"]])
      }),
    )

    it.effect("a deleted thread is gone from the index", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        yield* thread("a", ["a secret about marmalade"])
        expect(messageIds(yield* recall.searchText(["marmalade"], everywhere))).toEqual(["a-1"])
        yield* (yield* Threads).delete("a")
        expect(yield* recall.searchText(["marmalade"], everywhere)).toEqual([])
      }),
    )

    it.effect("around gives a hit's neighbours in order, with the thread's title", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        yield* thread("a", ["one", "two", "three zeppelin", "four", "five"])
        yield* (yield* Threads).setTitle("a", "Counting")
        const [hit] = yield* recall.searchText(["zeppelin"], everywhere)
        const around = yield* recall.around("a", hit!.seq, 1)
        expect(around.map((message) => [message.messageId, message.role, message.threadTitle])).toEqual([
          ["a-2", "assistant", "Counting"],
          ["a-3", "user", "Counting"],
          ["a-4", "assistant", "Counting"],
        ])
        expect(JSON.parse(around[1]!.parts)).toEqual([{ type: "text", text: "three zeppelin" }])
        expect(around.map((message) => message.seq)).toEqual([hit!.seq - 1, hit!.seq, hit!.seq + 1])
        expect(typeof around[1]!.createdAt).toBe("string")
        expect(yield* recall.around("nope", 0, 5)).toEqual([])
      }),
    )

    it.effect("embeddings are per model; the nearest by cosine comes first; a rewritten message is not stored", () =>
      Effect.gen(function* () {
        const recall = yield* RecallIndex
        const threads = yield* Threads
        yield* thread("a", ["north", "east", "south"])
        const todo = yield* recall.unembedded("a", "m", 10)
        expect(todo.map((entry) => JSON.parse(entry.parts)[0].text)).toEqual(["north", "east", "south"])
        expect(yield* recall.unembedded("a", "m", 2)).toHaveLength(2)
        const vectors: Record<string, ReadonlyArray<number>> = { north: [0, 1], east: [1, 0], south: [0, -1] }
        // "south" is rewritten after it was read: its embedding would describe the old text.
        yield* threads.saveMessage("a", { id: "a-3", role: "user", parts: [{ type: "text", text: "west" }] })
        yield* recall.putEmbeddings(
          "m",
          todo.map((entry) => ({ ...entry, vector: vectors[JSON.parse(entry.parts)[0].text]! })),
        )
        const left = yield* recall.unembedded("a", "m", 10)
        expect(left.map((entry) => JSON.parse(entry.parts)[0].text)).toEqual(["west"])
        expect(yield* recall.unembedded("a", "other-model", 10)).toHaveLength(3)
        expect(messageIds(yield* recall.searchVector("m", [0.1, 0.9], everywhere))).toEqual(["a-1", "a-2"])
        expect(messageIds(yield* recall.searchVector("m", [5, 0.5], { ...everywhere, limit: 1 }))).toEqual(["a-2"])
        expect(yield* recall.searchVector("other-model", [0, 1], everywhere)).toEqual([])
        expect(yield* recall.searchVector("m", [0, 1], { excludeThreadId: "a", limit: 10 })).toEqual([])
      }),
    )
  })

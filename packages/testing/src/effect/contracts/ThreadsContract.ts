import { Threads as Module } from "@aide/kernel/threads"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"
import { threadsBranchesContract } from "./ThreadsBranchesContract.js"
import { threadsListContract } from "./ThreadsListContract.js"
import { at, conversation, later, messageIds, rowCount, text } from "./ThreadsSupport.js"

const { Threads } = Module
type StoredMessage = Module.StoredMessage

/**
 * The contract of `Threads` (conversations, their messages and their branches): ensure, save in
 * order, titles, the paged family list, forks and recursive deletes, with `ThreadNotFound` /
 * `MessageNotFound` for what does not exist. Timestamps come from `Clock` (the tests move
 * `TestClock`). Run it on your store's Layer (a fresh store per test).
 */
export const threadsContract = (name: string, store: Layer.Layer<Module.Threads, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)
    describe("ensure", () => {
      it.effect("creates an empty root thread the first time and returns it unchanged afterwards", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* later
          const first = yield* threads.ensure("t1")
          expect(first).toEqual({
            created: true,
            thread: {
              id: "t1",
              rootId: "t1",
              parentId: null,
              forkMessageId: null,
              forkPointIndex: null,
              title: null,
              createdAt: at(1),
              updatedAt: at(1),
            },
          })
          yield* later
          const second = yield* threads.ensure("t1")
          expect(second).toEqual({ created: false, thread: first.thread })
          expect(yield* threads.messages("t1")).toEqual([])
          expect(yield* threads.get("t1")).toEqual(first.thread)
        }),
      )

      it.effect("get, messages and detail of an unknown thread fail with ThreadNotFound", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          const notFound = { _tag: "ThreadNotFound", threadId: "nope" }
          expect(yield* Effect.flip(threads.get("nope"))).toMatchObject(notFound)
          expect(yield* Effect.flip(threads.messages("nope"))).toMatchObject(notFound)
          expect(yield* Effect.flip(threads.detail("nope"))).toMatchObject(notFound)
        }),
      )
    })

    describe("saveMessage", () => {
      it.effect("appends new messages at the end, in the order they are saved", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* conversation(threads, "t1", 3)
          yield* threads.saveMessage("t1", text("z-last", "user", "fourth"))
          yield* threads.saveMessage("t1", text("a-first-alphabetically", "assistant", "fifth"))
          expect(messageIds(yield* threads.messages("t1"))).toEqual([
            "m1",
            "m2",
            "m3",
            "z-last",
            "a-first-alphabetically",
          ])
        }),
      )

      it.effect("replaces a message with the same id in place, keeping its position", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* conversation(threads, "t1", 3)
          const grown: StoredMessage = {
            id: "m2",
            role: "assistant",
            parts: [
              { type: "text", text: "message 2, grown" },
              { type: "reasoning", text: "thinking" },
            ],
            metadata: { model: "fake" },
          }
          yield* threads.saveMessage("t1", grown)
          const messages = yield* threads.messages("t1")
          expect(messageIds(messages)).toEqual(["m1", "m2", "m3"])
          expect(messages[1]).toEqual(grown)
          yield* threads.saveMessage("t1", text("m4", "user", "after the replacement"))
          expect(messageIds(yield* threads.messages("t1"))).toEqual(["m1", "m2", "m3", "m4"])
        }),
      )

      it.effect("raises the thread's updatedAt", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* threads.ensure("t1")
          yield* later
          yield* threads.saveMessage("t1", text("m1", "user", "hi"))
          expect((yield* threads.get("t1")).updatedAt).toEqual(at(1))
          expect((yield* threads.get("t1")).createdAt).toEqual(at(0))
        }),
      )

      it.effect("fails with ThreadNotFound for an unknown thread and stores nothing", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          const error = yield* Effect.flip(threads.saveMessage("nope", text("m1", "user", "hi")))
          expect(error).toMatchObject({ _tag: "ThreadNotFound", threadId: "nope" })
          expect(yield* rowCount(threads, "messages")).toBe(0)
        }),
      )

      it.effect("round-trips arbitrary UI message parts and metadata unchanged", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* threads.ensure("t1")
          const parts = [
            { type: "step-start" },
            { type: "text", text: 'Unicode: ça va? 你好 👋 "quotes" \\ backslash\nnew line', state: "done" },
            { type: "reasoning", text: "", providerMetadata: { anthropic: { signature: "abc" } } },
            {
              type: "tool-weather",
              toolCallId: "call-1",
              state: "output-available",
              input: { city: "Paris", days: 3, metric: true, extra: null },
              output: { forecast: [1.5, -2, 0, 1e21], nested: { deep: [[], {}, [null]] } },
            },
            { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "a.png" },
            { type: "source-url", sourceId: "s1", url: "https://example.com/?q=1&r=2" },
            { type: "data-custom", id: "d1", data: { anything: ["goes", 1, false] } },
          ]
          const withMetadata: StoredMessage = {
            id: "a1",
            role: "assistant",
            parts,
            metadata: { usage: { tokens: 42 } },
          }
          const nullMetadata: StoredMessage = { id: "a2", role: "assistant", parts: [], metadata: null }
          const system: StoredMessage = { id: "s1", role: "system", parts: [{ type: "text", text: "be brief" }] }
          yield* threads.saveMessage("t1", withMetadata)
          yield* threads.saveMessage("t1", nullMetadata)
          yield* threads.saveMessage("t1", system)
          const messages = yield* threads.messages("t1")
          expect(messages).toStrictEqual([withMetadata, nullMetadata, system])
          expect("metadata" in messages[2]!).toBe(false)
          expect((yield* threads.detail("t1")).messages).toStrictEqual([withMetadata, nullMetadata, system])
        }),
      )
    })

    describe("tail and holding", () => {
      it.effect("tail reads the last messages in order and counts those before them", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* conversation(threads, "t1", 5)
          // A message replaced in place keeps its position in the tail too.
          const grown = text("m4", "assistant", "message 4, grown")
          yield* threads.saveMessage("t1", grown)
          const last2 = yield* threads.tail("t1", 2)
          expect(messageIds(last2.messages)).toEqual(["m4", "m5"])
          expect(last2.messages[0]).toStrictEqual(grown)
          expect(last2.before).toBe(3)
          const all = yield* threads.tail("t1", 50)
          expect(all.messages).toStrictEqual(yield* threads.messages("t1"))
          expect(all.before).toBe(0)
          expect(yield* threads.tail("t1", 5)).toStrictEqual({ messages: all.messages, before: 0 })
          yield* threads.ensure("empty")
          expect(yield* threads.tail("empty", 3)).toStrictEqual({ messages: [], before: 0 })
        }),
      )

      it.effect("a branch's tail is its own: cloned messages, then what it grew, never the source's later ones", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* conversation(threads, "t1", 6)
          const { thread } = yield* threads.fork("t1", "m4")
          yield* threads.saveMessage(thread.id, text("b1", "user", "on the branch"))
          const tail = yield* threads.tail(thread.id, 3)
          expect(messageIds(tail.messages)).toEqual(["m2", "m3", "b1"])
          expect(tail.before).toBe(1)
          expect(messageIds((yield* threads.tail("t1", 2)).messages)).toEqual(["m5", "m6"])
          expect(yield* threads.holding(thread.id, ["m1", "m4", "b1", "m6", "nope"])).toEqual(new Set(["m1", "b1"]))
        }),
      )

      it.effect("holding answers which of the ids are the thread's messages", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* conversation(threads, "t1", 3)
          yield* conversation(threads, "t2", 1)
          expect(yield* threads.holding("t1", ["m3", "m1", "x", "m3"])).toEqual(new Set(["m1", "m3"]))
          expect(yield* threads.holding("t1", [])).toEqual(new Set())
          yield* threads.ensure("empty")
          expect(yield* threads.holding("empty", ["m1"])).toEqual(new Set())
          // Many ids at once (past a statement's bound parameters in one batch).
          const many = Array.from({ length: 1_200 }, (_, index) => `other-${index}`)
          expect(yield* threads.holding("t1", [...many, "m2"])).toEqual(new Set(["m2"]))
        }),
      )

      it.effect("tail and holding of an unknown thread fail with ThreadNotFound", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          const notFound = { _tag: "ThreadNotFound", threadId: "nope" }
          expect(yield* Effect.flip(threads.tail("nope", 5))).toMatchObject(notFound)
          expect(yield* Effect.flip(threads.holding("nope", ["m1"]))).toMatchObject(notFound)
          expect(yield* Effect.flip(threads.holding("nope", []))).toMatchObject(notFound)
        }),
      )
    })

    describe("setTitle", () => {
      it.effect("sets and clears the title without changing updatedAt", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          yield* threads.ensure("t1")
          yield* later
          const titled = yield* threads.setTitle("t1", "Trip to Paris")
          expect(titled).toMatchObject({ id: "t1", title: "Trip to Paris", updatedAt: at(0) })
          expect((yield* threads.get("t1")).title).toBe("Trip to Paris")
          expect((yield* threads.setTitle("t1", null)).title).toBeNull()
          expect((yield* threads.detail("t1")).thread.title).toBeNull()
        }),
      )

      it.effect("fails with ThreadNotFound for an unknown thread", () =>
        Effect.gen(function* () {
          const threads = yield* Threads
          expect(yield* Effect.flip(threads.setTitle("nope", "x"))).toMatchObject({ _tag: "ThreadNotFound" })
        }),
      )
    })

    threadsListContract(it)
    threadsBranchesContract(it)
  })

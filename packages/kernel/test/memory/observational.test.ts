import { until } from "@aide/testing/effect"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Chat from "../../src/chat/Chat.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import * as Memory from "../../src/memory/Memory.js"
import * as Tokens from "../../src/memory/observational/Tokens.js"
import { Threads } from "../../src/threads/Threads.js"
import * as ThreadWindows from "../../src/threads/ThreadWindow.js"
import {
  configure,
  dialects,
  isObserver,
  isReflector,
  observerTurn,
  reflectorTurn,
  saveTurn,
  textMessage,
  withKernel,
  words,
} from "./support.js"

const record = Effect.flatMap(Memory.Memory, (memory) => Effect.map(memory.record(), (view) => view.record!))
const observations = Effect.flatMap(Memory.Memory, (memory) => memory.observations())
const afterTurn = (threadId: string) => Effect.flatMap(Memory.Memory, (memory) => memory.afterTurn(threadId))

const observedLog = "Date: 2026-11-24\n- 10:00 🔴 The owner drinks tea, never coffee."

describe.each([...dialects, "memory" as const])("observational memory (%s)", (dialect) => {
  it.live("counts every message in full and observes exactly when messageTokens is crossed", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 200 })
        const first = [textMessage("user", words(60, "tea")), textMessage("assistant", words(20, "noted"))]
        const firstTokens = first.reduce((sum, message) => sum + Tokens.ofMessage(message), 0)
        expect(firstTokens).toBeLessThan(200)
        yield* saveTurn("t1", first)
        yield* afterTurn("t1")
        yield* until(
          Effect.map(record, (r) => r.pendingMessageTokens === firstTokens),
          "first turn counted",
        )
        expect(server.requests.filter(isObserver)).toHaveLength(0)
        expect(yield* observations).toBeNull()

        server.script(observerTurn({ text: observedLog }))
        const second = [textMessage("user", words(200, "kettle")), textMessage("assistant", words(5, "ok"))]
        const allTokens = firstTokens + second.reduce((sum, message) => sum + Tokens.ofMessage(message), 0)
        yield* saveTurn("t1", second)
        yield* afterTurn("t1")
        yield* until(
          Effect.map(observations, (text) => text !== null),
          "observed",
        )
        const after = yield* record
        expect(after).toMatchObject({
          scope: "resource",
          pendingMessageTokens: 0,
          totalTokensObserved: allTokens,
          observationTokenCount: Tokens.ofText(observedLog),
          generationCount: 0,
          isObserving: false,
          isReflecting: false,
        })
        expect(after.lastObservedAt).toBeInstanceOf(Date)
        expect(yield* observations).toBe(observedLog)
        expect(server.requests.filter(isObserver)).toHaveLength(1)
      }),
    ),
  )

  it.live("one message over the threshold is enough", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        yield* saveTurn("big", [textMessage("user", words(300, "huge"))])
        yield* afterTurn("big")
        yield* until(
          Effect.map(observations, (text) => text === observedLog),
          "observed",
        )
        expect((yield* record).pendingMessageTokens).toBe(0)
      }),
    ),
  )

  it.live("tool results count in full, are labelled for the observer, and nothing injected reaches it", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        const memory = yield* Memory.Memory
        yield* memory.setWorkingMemory("WORKING-MEMORY-SECRET")
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        const toolMessage = {
          id: "tool-answer",
          role: "assistant" as const,
          parts: [
            {
              type: "tool-web_search",
              toolCallId: "c1",
              state: "output-available",
              input: { q: "tea" },
              output: { page: words(400, "article") },
            },
          ],
        }
        expect(Tokens.ofMessage(toolMessage)).toBeGreaterThan(400)
        yield* saveTurn("tools", [textMessage("user", "find tea shops"), toolMessage])
        yield* afterTurn("tools")
        yield* until(
          Effect.map(observations, (text) => text !== null),
          "observed",
        )
        const request = JSON.stringify(server.requests.find(isObserver)!.body.messages.slice(1))
        expect(request).toContain("owner: find tea shops")
        expect(request).toContain("tool result (web_search, not from the owner)")
        expect(request).not.toContain("WORKING-MEMORY-SECRET")
        expect(request).not.toContain("helpful personal assistant")
      }),
    ),
  )

  it.live("observations replace the messages they cover in the next model call", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        yield* saveTurn("chat", [textMessage("user", words(100, "oolong")), textMessage("assistant", "Sure.")])
        yield* afterTurn("chat")
        yield* until(
          Effect.map(observations, (text) => text !== null),
          "observed",
        )
        const chat = yield* Chat.Chat
        const run = yield* chat.send({ threadId: "chat", parts: [{ type: "text", text: "What do I drink?" }] })
        yield* Stream.runDrain(run.events)
        const request = server.requests.filter((candidate) => !isObserver(candidate)).at(-1)!
        const sent = JSON.stringify(request.body.messages)
        expect(sent).toContain("<observations>")
        expect(sent).toContain("The owner drinks tea, never coffee.")
        expect(sent).not.toContain("oolong")
        expect(sent).toContain("What do I drink?")
      }),
    ),
  )

  it.live("the reflector rewrites the log denser as a new generation; every generation is kept", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50, observationTokens: 60 })
        const long = [
          "Date: 2026-11-24",
          "- 10:00 🔴 The owner drinks tea, never coffee.",
          "- 10:01 🔴 The owner lives in Lyon.",
          ...Array.from({ length: 12 }, (_, n) => `- 10:0${n % 10} 🟢 Small talk number ${n} about the weather.`),
        ].join("\n")
        const dense =
          "Date: 2026-11-24\n- 10:00 🔴 The owner drinks tea, never coffee.\n- 10:01 🔴 The owner lives in Lyon."
        server.script(observerTurn({ text: long }), reflectorTurn({ text: dense }))
        yield* saveTurn("r", [textMessage("user", words(100, "lyon"))])
        yield* afterTurn("r")
        yield* until(
          Effect.map(record, (r) => r.generationCount === 1),
          "reflected",
        )
        expect(yield* observations).toBe(dense)
        expect((yield* record).observationTokenCount).toBe(Tokens.ofText(dense))
        const memory = yield* Memory.Memory
        expect(yield* memory.reflections("resource")).toEqual([{ generation: 1, content: dense }])
      }),
    ),
  )

  it.live("a lossy or repetitive reflection is rejected and the log kept", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50, observationTokens: 60 })
        const long = [
          "Date: 2026-11-24",
          ...Array.from({ length: 8 }, (_, n) => `- 10:0${n} 🔴 Important fact number ${n} about the owner.`),
        ].join("\n")
        const lossy = "Date: 2026-11-24\n- 10:00 🔴 Important fact number 0 about the owner."
        const looping = "Date: 2026-11-24\n- 10:00 🔴 fact\n- 10:00 🔴 fact\n- 10:00 🔴 fact"
        server.script(observerTurn({ text: long }), reflectorTurn({ text: lossy }), reflectorTurn({ text: looping }))
        yield* saveTurn("l", [textMessage("user", words(100, "facts"))])
        yield* afterTurn("l")
        yield* until(
          Effect.sync(() => server.requests.filter(isReflector).length === 2),
          "two reflections tried",
        )
        yield* until(
          Effect.map(record, (r) => !r.isReflecting),
          "reflector done",
        )
        expect((yield* record).generationCount).toBe(0)
        expect(yield* observations).toBe(long)
      }),
    ),
  )

  it.live("failures never fail a chat: the breaker pauses memory, then it retries", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        const failing = observerTurn({ error: { status: 500, message: "down" } })
        server.script(failing, failing, failing)
        for (let turn = 1; turn <= 3; turn++) {
          yield* saveTurn("f", [textMessage("user", words(100, `try${turn}`))])
          yield* afterTurn("f")
          yield* until(
            Effect.sync(() => server.requests.filter(isObserver).length === turn),
            `attempt ${turn}`,
          )
          yield* until(
            Effect.map(record, (r) => !r.isObserving),
            "claim given up",
          )
        }
        // Open: a turn now makes no call.
        yield* saveTurn("f", [textMessage("user", words(10, "paused"))])
        yield* afterTurn("f")
        yield* Effect.sleep("100 millis")
        expect(server.requests.filter(isObserver)).toHaveLength(3)
        // After the pause (300 ms here), the next turn observes everything pending.
        yield* Effect.sleep("300 millis")
        server.script(observerTurn({ text: observedLog }))
        yield* afterTurn("f")
        yield* until(
          Effect.map(record, (r) => r.pendingMessageTokens === 0 && !r.isObserving),
          "observed after the pause",
        )
        expect(yield* observations).toContain(observedLog)
      }),
    ),
  )

  it.live("the daily token budget stops memory's model calls", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50, dailyTokenBudget: 1_000 })
        server.script(observerTurn({ text: observedLog, usage: { promptTokens: 900, completionTokens: 200 } }))
        yield* saveTurn("b", [textMessage("user", words(100, "budget"))])
        yield* afterTurn("b")
        yield* until(
          Effect.map(observations, (text) => text !== null),
          "observed once",
        )
        yield* saveTurn("b", [textMessage("user", words(100, "over"))])
        yield* afterTurn("b")
        yield* Effect.sleep("200 millis")
        expect(server.requests.filter(isObserver)).toHaveLength(1)
        expect((yield* record).pendingMessageTokens).toBeGreaterThan(50)
      }),
    ),
  )

  it.live("deleting a thread forgets what came only from it, reflections included", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50, observationTokens: 100_000 })
        const fromA = `Date: 2026-11-24\n- 10:00 🔴 From thread A: ${words(30, "alpha")}`
        const fromB = `Date: 2026-11-24\n- 10:05 🔴 From thread B: ${words(30, "beta")}`
        server.script(observerTurn({ text: fromA }))
        yield* saveTurn("A", [textMessage("user", words(100, "alpha"))])
        yield* afterTurn("A")
        yield* until(
          Effect.map(observations, (text) => text === fromA),
          "A observed",
        )
        server.script(observerTurn({ text: fromB }))
        yield* saveTurn("B", [textMessage("user", words(100, "beta"))])
        yield* afterTurn("B")
        yield* until(
          Effect.map(observations, (text) => text === `${fromA}\n\n${fromB}`),
          "B observed",
        )
        // A reflection absorbs both; forgetting A must drop it too.
        yield* configure({ observationTokens: 50 })
        const both = "Date: 2026-11-24\n- 10:00 🔴 From A.\n- 10:05 🔴 From B."
        server.script(reflectorTurn({ text: both }))
        yield* saveTurn("B", [textMessage("assistant", "ok")])
        yield* afterTurn("B")
        yield* until(
          Effect.map(record, (r) => r.generationCount === 1),
          "reflected",
        )
        yield* configure({ observationTokens: 100_000 })
        const memory = yield* Memory.Memory
        yield* (yield* Threads).delete("A")
        yield* memory.forgetThreads(["A"])
        expect(yield* observations).toBe(fromB)
        expect(yield* record).toMatchObject({ generationCount: 0, observationTokenCount: Tokens.ofText(fromB) })
        expect(yield* memory.reflections("resource")).toEqual([])
      }),
    ),
  )

  it.live("a fork keeps its source's observations and its copies are never counted again", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        const first = textMessage("user", words(100, "source"))
        const answer = textMessage("assistant", "Noted.")
        const next = textMessage("user", "and then?")
        yield* saveTurn("src", [first, answer, next])
        yield* afterTurn("src")
        // Observed, not merely "nothing pending yet" (the turn is counted in the background).
        const memory = yield* Memory.Memory
        yield* until(
          Effect.zipWith(
            record,
            memory.observations(),
            (r, text) => r.pendingMessageTokens === 0 && text === observedLog,
          ),
          "observed",
        )
        const threads = yield* Threads
        const fork = yield* threads.fork("src", next.id)
        yield* afterTurn(fork.thread.id)
        yield* Effect.sleep("100 millis")
        expect((yield* record).pendingMessageTokens).toBe(0)
        const history = yield* threads.messages(fork.thread.id)
        const fresh = textMessage("user", "new")
        const context = yield* memory.contextFor(fork.thread.id, ThreadWindows.complete([...history, fresh]))
        expect(context.observations).toBe(observedLog)
        expect(context.history.map((message) => message.id)).toEqual([fresh.id])
      }),
    ),
  )

  it.live("thread scope: a fork inherits its source's observations up to the fork point", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ scope: "thread", messageTokens: 50 })
        const memory = yield* Memory.Memory
        const early = `Date: 2026-11-24\n- 10:00 🔴 Early fact: ${words(10, "early")}`
        const late = `Date: 2026-11-24\n- 10:30 🔴 Late fact: ${words(10, "late")}`
        server.script(observerTurn({ text: early }))
        const first = [textMessage("user", words(100, "first")), textMessage("assistant", "ok")]
        yield* saveTurn("source", first)
        yield* afterTurn("source")
        yield* until(
          Effect.map(memory.observations("source"), (text) => text === early),
          "early observed",
        )
        server.script(observerTurn({ text: late }))
        const second = [textMessage("user", words(100, "second")), textMessage("assistant", "ok")]
        yield* saveTurn("source", second)
        yield* afterTurn("source")
        yield* until(
          Effect.map(memory.observations("source"), (text) => text === `${early}\n\n${late}`),
          "late",
        )
        // Forked before the second turn: the fork keeps the early observation only.
        const fork = yield* (yield* Threads).fork("source", second[0]!.id)
        yield* afterTurn(fork.thread.id)
        yield* until(
          Effect.map(memory.observations(fork.thread.id), (text) => text === early),
          "inherited",
        )
        const forkRecord = (yield* memory.record(fork.thread.id)).record!
        expect(forkRecord).toMatchObject({ scope: "thread", pendingMessageTokens: 0 })
        expect(forkRecord.totalTokensObserved).toBe(first.reduce((sum, message) => sum + Tokens.ofMessage(message), 0))
        expect(server.requests.filter(isObserver)).toHaveLength(2)
      }),
    ),
  )

  it.live("isObserving is true exactly while the observer runs", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog, latencyMs: 400 }))
        yield* saveTurn("slow", [textMessage("user", words(100, "slow"))])
        yield* afterTurn("slow")
        yield* until(
          Effect.map(record, (r) => r.isObserving),
          "observing",
        )
        yield* until(
          Effect.map(observations, (text) => text !== null),
          "observed",
        )
        expect((yield* record).isObserving).toBe(false)
      }),
    ),
  )

  it.live("memory off: record and thresholds are null, observations null, nothing is counted", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        const memory = yield* Memory.Memory
        expect(yield* memory.record()).toMatchObject({
          record: { pendingMessageTokens: 0 },
          thresholds: { scope: "resource", messageTokens: 30_000, observationTokens: 40_000 },
        })
        yield* Effect.flatMap(AppConfig, (config) =>
          config.patch({ memory: { enabled: false, observationalMemory: { messageTokens: 50 } } }),
        )
        expect(yield* memory.record()).toEqual({ record: null, thresholds: null })
        expect(yield* memory.observations()).toBeNull()
        yield* saveTurn("off", [textMessage("user", words(100, "off"))])
        yield* afterTurn("off")
        yield* Effect.sleep("100 millis")
        expect(server.requests).toHaveLength(0)
      }),
    ),
  )
})

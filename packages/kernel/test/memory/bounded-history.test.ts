import { until } from "@aide/testing/effect"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Chat from "../../src/chat/Chat.js"
import * as Memory from "../../src/memory/Memory.js"
import { Threads, type ThreadWindow } from "../../src/threads/Threads.js"
import * as ThreadWindows from "../../src/threads/ThreadWindow.js"
import { configure, dialects, isObserver, observerTurn, saveTurn, textMessage, withKernel, words } from "./support.js"

// A long thread's run reads its newest messages (`Threads.tail`), not the whole thread: memory's
// `contextFor` and `afterTurn` ask for more only when their observed / counted head does not
// reach the window, and answer exactly what they would have answered over the whole thread.

const observedLog = "Date: 2026-11-24\n- 10:00 🔴 The owner keeps a long diary."

/** The window with every read beyond it counted: how many messages were read past the tail. */
const counting = (window: ThreadWindow) => {
  const extra = { widened: 0, all: 0 }
  const counted: ThreadWindow = {
    ...window,
    widen: (last) =>
      Effect.tap(window.widen(last), (tail) =>
        Effect.sync(() => {
          extra.widened += tail.messages.length
        }),
      ),
    all: Effect.tap(window.all, (all) =>
      Effect.sync(() => {
        extra.all += all.length
      }),
    ),
  }
  return { window: counted, extra }
}

const ids = (messages: ReadonlyArray<{ readonly id: string }>) => messages.map((message) => message.id)

/** 150 messages, user and assistant in turns: a thread longer than any window. */
const diary = () =>
  Array.from({ length: 150 }, (_, n) =>
    textMessage(n % 2 === 0 ? "user" : "assistant", `${words(6, "diary")} entry ${n}`),
  )

describe.each([...dialects, "memory" as const])("a long thread's history (%s)", (dialect) => {
  it.live("observed: contextFor and the after-turn count read the window only, as the whole thread would answer", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        const memory = yield* Memory.Memory
        const threads = yield* Threads
        yield* saveTurn("long", diary())
        yield* memory.afterTurn("long")
        yield* until(
          Effect.zipWith(
            memory.record("long"),
            memory.observations("long"),
            (view, log) => log === observedLog && view.record?.pendingMessageTokens === 0,
          ),
          "observed",
        )
        const question = textMessage("user", "What did I write?")
        yield* saveTurn("long", [question])

        const { window, extra } = counting(yield* ThreadWindows.read(threads, "long", 4))
        expect(window.before).toBe(147)
        const context = yield* memory.contextFor("long", window)
        const whole = yield* memory.contextFor("long", ThreadWindows.complete(yield* threads.messages("long")))
        expect(ids(context.history)).toEqual([question.id])
        expect(context).toEqual(whole)
        expect(extra).toEqual({ widened: 0, all: 0 })

        // The turn is counted from the window too: the answer and the question, nothing else.
        const answer = textMessage("assistant", "A diary.")
        yield* saveTurn("long", [answer])
        const before = (yield* memory.record("long")).record!.pendingMessageTokens
        yield* memory.afterTurn("long", ThreadWindows.withAnswer(window, answer))
        yield* until(
          Effect.map(memory.record("long"), (view) => view.record!.pendingMessageTokens > before),
          "the turn counted",
        )
        expect(extra).toEqual({ widened: 0, all: 0 })
      }),
    ),
  )

  it.live("not observed: the window widens to what is sent, the same answer as over the whole thread", () =>
    withKernel(dialect, () =>
      Effect.gen(function* () {
        const memory = yield* Memory.Memory
        const threads = yield* Threads
        yield* saveTurn("fresh", diary())
        const { window, extra } = counting(yield* ThreadWindows.read(threads, "fresh", 4))
        const context = yield* memory.contextFor("fresh", window)
        expect(ids(context.history)).toEqual(ids(yield* threads.messages("fresh")))
        expect(extra.widened + extra.all).toBe(150)
      }),
    ),
  )

  it.live("a chat on the observed thread sends the observations and the new message only", () =>
    withKernel(dialect, (server) =>
      Effect.gen(function* () {
        yield* configure({ messageTokens: 50 })
        server.script(observerTurn({ text: observedLog }))
        const memory = yield* Memory.Memory
        yield* saveTurn("long", diary())
        yield* memory.afterTurn("long")
        yield* until(
          Effect.zipWith(
            memory.record("long"),
            memory.observations("long"),
            (view, log) => log === observedLog && view.record?.pendingMessageTokens === 0,
          ),
          "observed",
        )
        const chat = yield* Chat.Chat
        const run = yield* chat.send({ threadId: "long", parts: [{ type: "text", text: "What did I write?" }] })
        yield* Stream.runDrain(run.events)
        const request = server.requests.filter((candidate) => !isObserver(candidate)).at(-1)!
        const sent = JSON.stringify(request.body.messages)
        expect(sent).toContain("The owner keeps a long diary.")
        expect(sent).toContain("What did I write?")
        expect(sent).not.toContain("entry 149")
        expect((yield* (yield* Threads).messages("long")).length).toBe(152)
      }),
    ),
  )
})

import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, type Layer, Option, Stream, TestClock } from "effect"
import * as Chat from "../src/chat/Chat.js"
import * as StreamHub from "../src/chat/StreamHub.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import { Threads } from "../src/threads/Threads.js"
import {
  answer,
  chatKernel,
  chunkOf,
  chunksOf,
  endlessModel,
  eventually,
  liveModel,
  messagesOf,
  scriptedModel,
  send,
  textOf,
  useModel,
} from "./support/chat.js"

/** Issue 9 items 9, 10 and 14: a run is bounded, keeps what it produced, and never poisons its thread. */

const withKernel = <A, E>(
  options: Chat.ChatOptions,
  body: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof chatKernel>>>,
) => Effect.provide(body, chatKernel(options))

const partOf = (message: { readonly parts: ReadonlyArray<unknown> } | undefined, type: string) =>
  message?.parts.find((part) => (part as { type?: unknown }).type === type) as Record<string, unknown> | undefined

/** Waits until the run of `threadId` has relayed the text delta `delta`. */
const relayed = (threadId: string, delta: string) =>
  Effect.gen(function* () {
    const events = yield* Effect.flatMap(StreamHub.StreamHub, (hub) => hub.subscribe(threadId))
    const empty: Stream.Stream<StreamHub.StreamEvent> = Stream.empty
    yield* Option.getOrElse(events, () => empty).pipe(
      Stream.takeUntil((event) => chunkOf(event).delta === delta),
      Stream.runDrain,
    )
  })

describe("run bounds: answer size", () => {
  it.effect(
    "an endless answer is cut at maxAnswerBytes: the model call ends, the stream ends with an error, the message keeps what was sent",
    () =>
      withKernel(
        { maxAnswerBytes: 1000 },
        Effect.gen(function* () {
          const endless = endlessModel("0123456789")
          yield* useModel(endless.model)
          const chunks = yield* chunksOf(yield* send("t1", "Count for ever"))

          expect(chunks.at(-1)).toEqual({ type: "error", errorText: expect.stringContaining("1000 bytes") })
          expect(chunks.map((chunk) => chunk.type)).not.toContain("finish")
          expect(endless.model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true)
          const [, assistant] = yield* messagesOf("t1")
          expect(textOf(assistant)).toBe("0123456789".repeat(100))
          expect(partOf(assistant, "text")).toMatchObject({ state: "done" })
          expect(assistant!.metadata).toMatchObject({ interrupted: "max-answer-bytes" })
        }),
      ),
  )

  it.effect("the thread takes the next message after a cut", () =>
    withKernel(
      { maxAnswerBytes: 100 },
      Effect.gen(function* () {
        yield* useModel(endlessModel("abcdefghij").model)
        yield* chunksOf(yield* send("t1", "Go"))
        yield* useModel(scriptedModel(answer("Done.")))
        yield* chunksOf(yield* send("t1", "Stop now"))
        expect((yield* messagesOf("t1")).map(textOf)).toEqual(["Go", "abcdefghij".repeat(10), "Stop now", "Done."])
      }),
    ),
  )
})

describe("run bounds: idle timeout", () => {
  it.effect("a model silent for idleTimeout mid-stream is cut, keeping what it said", () =>
    withKernel(
      { idleTimeout: "30 seconds" },
      Effect.gen(function* () {
        const live = liveModel()
        yield* useModel(live.model)
        const starting = yield* Effect.fork(send("t1", "Tell me a story"))
        yield* live.push(
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "0" },
          { type: "text-delta", id: "0", delta: "Once upon" },
        )
        const run = yield* Fiber.join(starting)
        const reading = yield* Effect.fork(chunksOf(run))
        yield* TestClock.adjust("29 seconds")
        yield* live.push({ type: "text-delta", id: "0", delta: " a time" })
        yield* relayed("t1", " a time")
        // Silence is measured from the last chunk: 29 s more do not cut the run either.
        yield* TestClock.adjust("29 seconds")
        expect(live.model.doStreamCalls[0]!.abortSignal?.aborted).toBe(false)
        yield* TestClock.adjust("1 second")
        const chunks = yield* Fiber.join(reading)

        expect(chunks.at(-1)).toEqual({ type: "error", errorText: expect.stringContaining("30s") })
        expect(live.model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true)
        const [, assistant] = yield* messagesOf("t1")
        expect(textOf(assistant)).toBe("Once upon a time")
        expect(partOf(assistant, "text")).toMatchObject({ state: "done" })
        expect(assistant!.metadata).toMatchObject({ interrupted: "idle-timeout" })
      }),
    ),
  )

  it.effect("a model silent for idleTimeout before any content fails the send", () =>
    withKernel(
      { idleTimeout: "30 seconds" },
      Effect.gen(function* () {
        const live = liveModel()
        yield* useModel(live.model)
        const starting = yield* Effect.fork(send("t1", "Hello?"))
        yield* eventually(Effect.suspend(() => (live.model.doStreamCalls.length > 0 ? Effect.void : Effect.fail("no"))))
        yield* TestClock.adjust("30 seconds")
        const result = yield* Effect.either(Fiber.join(starting))
        expect(result).toMatchObject({
          _tag: "Left",
          left: { _tag: "ChatModelError", message: expect.stringContaining("sent nothing") },
        })
        // The thread is free again.
        yield* useModel(scriptedModel(answer("Hi.")))
        yield* chunksOf(yield* send("t1", "Hello again"))
        expect((yield* messagesOf("t1")).map(textOf)).toEqual(["Hello?", "Hello again", "Hi."])
      }),
    ),
  )
})

describe("partial answers", () => {
  it.effect("a streaming answer is saved every checkpointInterval, marked partial and never `streaming`", () =>
    withKernel(
      { checkpointInterval: 2000 },
      Effect.gen(function* () {
        const live = liveModel()
        yield* useModel(live.model)
        const starting = yield* Effect.fork(send("t1", "Tell me a story"))
        yield* live.push(
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "0" },
          { type: "text-delta", id: "0", delta: "Once upon" },
        )
        const run = yield* Fiber.join(starting)
        const reading = yield* Effect.fork(chunksOf(run))
        yield* TestClock.adjust("2 seconds")
        yield* live.push({ type: "text-delta", id: "0", delta: " a time" })

        const saved = yield* eventually(
          Effect.flatMap(messagesOf("t1"), (messages) =>
            messages.length === 2 ? Effect.succeed(messages[1]!) : Effect.fail("not yet"),
          ),
        )
        expect(textOf(saved)).toBe("Once upon a time")
        expect(saved.metadata).toMatchObject({ runId: run.runId, threadId: "t1", partial: true })
        expect(partOf(saved, "text")).toMatchObject({ state: "done" })

        yield* live.push(
          { type: "text-delta", id: "0", delta: "." },
          { type: "text-end", id: "0" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
          },
        )
        yield* live.end
        yield* Fiber.join(reading)
        const [, final] = yield* messagesOf("t1")
        expect(final!.id).toBe(saved.id)
        expect(textOf(final)).toBe("Once upon a time.")
        expect(final!.metadata).not.toHaveProperty("partial")
        expect(final!.metadata).not.toHaveProperty("interrupted")
      }),
    ),
  )

  it.effect("a stopped answer is stored settled, marked stopped", () =>
    withKernel(
      {},
      Effect.gen(function* () {
        const live = liveModel()
        yield* useModel(live.model)
        const starting = yield* Effect.fork(send("t1", "Tell me a long story"))
        yield* live.push(
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "0" },
          { type: "text-delta", id: "0", delta: "Once upon a time" },
        )
        const run = yield* Fiber.join(starting)
        yield* Effect.flatMap(Chat.Chat, (chat) => chat.stop("t1"))
        yield* chunksOf(run)
        const [, assistant] = yield* messagesOf("t1")
        expect(textOf(assistant)).toBe("Once upon a time")
        expect(partOf(assistant, "text")).toMatchObject({ state: "done" })
        expect(assistant!.metadata).toMatchObject({ interrupted: "stopped" })
      }),
    ),
  )
})

describe("stored file parts", () => {
  it.effect("a stored file part with a malformed data URL is left out of the model request; the thread goes on", () =>
    withKernel(
      {},
      Effect.gen(function* () {
        const threads = yield* Threads
        yield* threads.ensure("t1")
        yield* threads.saveMessage("t1", {
          id: "m1",
          role: "user",
          parts: [
            { type: "text", text: "Look" },
            { type: "file", mediaType: "image/png", url: "data:image/png,not-base64", filename: "cat.png" },
          ],
        })
        const model = yield* useModel(scriptedModel(answer("I cannot see it.")))
        yield* chunksOf(yield* send("t1", "Well?"))
        const prompt = JSON.stringify(model.doStreamCalls[0]!.prompt)
        expect(prompt).not.toContain("not-base64")
        expect(prompt).toContain("the attachment cat.png was left out")
        expect((yield* messagesOf("t1")).map(textOf)).toEqual(["Look", "Well?", "I cannot see it."])
        // The stored message itself is kept as it was.
        expect((yield* messagesOf("t1"))[0]!.parts[1]).toMatchObject({ url: "data:image/png,not-base64" })
      }),
    ),
  )
})

describe("run bounds: titles", () => {
  it.effect("a title asked of a model that answers for ever reads a few hundred characters, then ends the call", () =>
    withKernel(
      {},
      Effect.gen(function* () {
        const endless = endlessModel("a title that never ends ")
        yield* useModel(endless.model)
        const titles = yield* Effect.provide(TitleGenerator.TitleGenerator, TitleGenerator.layerModel)
        const title = yield* titles.generate([{ id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] }])

        expect(Option.getOrThrow(title)).toMatch(/^a title that never ends/)
        // Before the fix, only the text branch was cancelled: the SDK's other branches of the
        // response kept reading the provider, and buffering it, for as long as it sent.
        expect(endless.model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true)
        const pulled = endless.state.pulled
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        expect(endless.state.pulled).toBe(pulled)
      }),
    ),
  )
})

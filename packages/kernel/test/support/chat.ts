import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { simulateReadableStream } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { Chunk, Context, Effect, Layer, Schedule, Stream, TestServices } from "effect"
import type * as AgentStep from "../../src/chat/AgentStep.js"
import * as AiSdkAgentStep from "../../src/chat/AiSdkAgentStep.js"
import * as Chat from "../../src/chat/Chat.js"
import * as SqlChatRuns from "../../src/chat/SqlChatRuns.js"
import * as StreamHub from "../../src/chat/StreamHub.js"
import * as TitleGenerator from "../../src/chat/TitleGenerator.js"
import * as AppConfig from "../../src/config/AppConfig.js"
import * as Ids from "../../src/ids/Ids.js"
import * as Memory from "../../src/memory/Memory.js"
import * as SqlObservationStore from "../../src/memory/observational/SqlObservationStore.js"
import * as Recall from "../../src/memory/recall/Recall.js"
import * as SqlRecallIndex from "../../src/memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../../src/memory/SqlMemoryStore.js"
import { ModelRegistry } from "../../src/models/ModelRegistry.js"
import * as SqlThreads from "../../src/threads/SqlThreads.js"
import { type StoredMessage, Threads } from "../../src/threads/Threads.js"
import * as ToolRegistry from "../../src/tools/ToolRegistry.js"
import * as Tools from "../../src/tools/Tools.js"
import { tempSqliteStorageLayer } from "./files.js"

/** Chat through its Layers on a fresh SQLite database, with a model each test sets (`useModel`). */

export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** What a provider streams for a text answer, cut into `deltas`. */
export const answer = (...deltas: ReadonlyArray<string>): Array<LanguageModelV3StreamPart> => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "0" },
  ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta })),
  { type: "text-end", id: "0" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
]

/** A model answering each call with `parts`. */
export const scriptedModel = (...responses: ReadonlyArray<Array<LanguageModelV3StreamPart>>) => {
  let calls = 0
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: responses[calls++] ?? answer("no more responses"),
        initialDelayInMs: null,
        chunkDelayInMs: null,
      }),
    }),
  })
}

/** A model that streams `delta` for ever, until its call is aborted; `pulled` counts the deltas. */
export const endlessModel = (delta: string) => {
  const state = { pulled: 0 }
  const model = new MockLanguageModelV3({
    doStream: async (options: LanguageModelV3CallOptions) => {
      let started = false
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        pull: (controller) => {
          if (options.abortSignal?.aborted) return controller.error(new DOMException("aborted", "AbortError"))
          if (!started) {
            started = true
            controller.enqueue({ type: "stream-start", warnings: [] })
            controller.enqueue({ type: "text-start", id: "0" })
          }
          state.pulled++
          controller.enqueue({ type: "text-delta", id: "0", delta })
        },
      })
      return { stream }
    },
  })
  return { model, state }
}

/** A model whose one stream the test drives: `push` parts, `end` it. An aborted call errors. */
export const liveModel = () => {
  let controller!: ReadableStreamDefaultController<LanguageModelV3StreamPart>
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    start: (c) => {
      controller = c
    },
  })
  const mock = new MockLanguageModelV3({
    doStream: async (options: LanguageModelV3CallOptions) => {
      options.abortSignal?.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")))
      return { stream }
    },
  })
  return {
    model: mock,
    push: (...parts: ReadonlyArray<LanguageModelV3StreamPart>) =>
      Effect.sync(() => {
        for (const part of parts) controller.enqueue(part)
      }),
    end: Effect.sync(() => controller.close()),
    /** Succeeds once the model has been called. */
    called: Effect.suspend(() => (mock.doStreamCalls.length > 0 ? Effect.void : Effect.fail("not called yet"))),
  }
}

class TestModel extends Context.Tag("test/ChatTestModel")<TestModel, { current: MockLanguageModelV3 }>() {}

export const useModel = <M extends MockLanguageModelV3>(languageModel: M) =>
  Effect.map(TestModel, (holder) => {
    holder.current = languageModel
    return languageModel
  })

/** The registry handing out the model `useModel` set last. */
export const modelRegistry = Layer.effect(
  ModelRegistry,
  Effect.map(TestModel, (holder) =>
    ModelRegistry.of({
      providerIds: [],
      providers: Effect.succeed([]),
      languageModel: () => Effect.sync(() => ({ model: holder.current, settings: {} })),
    }),
  ),
).pipe(Layer.provideMerge(Layer.sync(TestModel, () => ({ current: scriptedModel() }))))

export const chatKernel = (
  options: Chat.ChatOptions = {},
  agentStep: Layer.Layer<AgentStep.AgentStep> = AiSdkAgentStep.layer,
  /** Another title generator (one that counts its calls), another storage (PostgreSQL's). */
  swaps: {
    readonly titles?: Layer.Layer<TitleGenerator.TitleGenerator>
    readonly storage?: typeof tempSqliteStorageLayer
  } = {},
) =>
  Chat.layer({ maxRetries: 0, ...options }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        StreamHub.layerMemory({ retention: "60 seconds" }),
        swaps.titles ?? TitleGenerator.layerFallback,
        Ids.layer,
        Tools.layer.pipe(Layer.provideMerge(ToolRegistry.layer)),
        agentStep,
        SqlChatRuns.layer,
        Memory.layer().pipe(Layer.provide([SqlMemoryStore.layer, SqlObservationStore.layer, Ids.layer])),
        Recall.layer.pipe(Layer.provide(SqlRecallIndex.layer)),
      ),
    ),
    Layer.provideMerge(
      Layer.mergeAll(
        SqlThreads.layer.pipe(Layer.provide(Ids.layer)),
        AppConfig.layerMemory.pipe(Layer.provideMerge(modelRegistry)),
      ),
    ),
    Layer.provideMerge(swaps.storage ?? tempSqliteStorageLayer),
  )

export type UIChunk = { readonly type: string } & Record<string, unknown>

export const chunkOf = (event: StreamHub.StreamEvent) => event.chunk as UIChunk

/** Every chunk of a run, up to the end of its stream. */
export const chunksOf = (run: { readonly events: Stream.Stream<StreamHub.StreamEvent> }) =>
  Effect.map(Stream.runCollect(run.events), (events) => Chunk.toReadonlyArray(events).map(chunkOf))

export const textOf = (message: StoredMessage | undefined) =>
  (message?.parts ?? [])
    .filter((part): part is { type: "text"; text: string } => (part as { type?: unknown }).type === "text")
    .map((part) => part.text)
    .join("")

export const send = (threadId: string, text: string) =>
  Effect.flatMap(Chat.Chat, (chat) => chat.send({ threadId, parts: [{ type: "text", text }] }))

export const messagesOf = (threadId: string) => Effect.flatMap(Threads, (threads) => threads.messages(threadId))

/** Retries `effect` (in real time) until it succeeds: for waiting on a run the test does not hold. */
export const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  TestServices.provideLive(Effect.retry(effect, Schedule.intersect(Schedule.spaced("10 millis"), Schedule.recurs(300))))

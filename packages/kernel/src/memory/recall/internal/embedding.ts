import type { EmbeddingModel } from "ai"
import { Effect, Schema } from "effect"
import { loadAi } from "../../../models/LoadAi.js"
import type { RecallIndex } from "../RecallIndex.js"
import { maxMessageChars, textOf } from "./section.js"

/** The embedding provider failed (network, quota, unknown model). */
export class EmbeddingFailed extends Schema.TaggedError<EmbeddingFailed>()("EmbeddingFailed", {
  message: Schema.String,
}) {}

/** Messages embedded per provider call, and most calls per turn (a backlog is caught up over turns). */
const batchSize = 64
const maxBatchesPerTurn = 8

/** Long messages are cut: embedding models have input limits, and the start says what it is about. */
const embeddable = (text: string) => text.slice(0, maxMessageChars * 4)

export const embedQuery = (model: EmbeddingModel, text: string) =>
  Effect.tryPromise({
    try: async (signal) =>
      (await (await loadAi()).embed({ model, value: embeddable(text), abortSignal: signal, maxRetries: 0 })).embedding,
    catch: (error) => new EmbeddingFailed({ message: error instanceof Error ? error.message : String(error) }),
  })

/** Embeds the messages of `threadId` that have no vector by this embedder yet. */
export const embedMessages = (
  index: RecallIndex["Type"],
  embedder: { readonly name: string; readonly model: EmbeddingModel },
  threadId: string,
) =>
  Effect.gen(function* () {
    for (let batch = 0; batch < maxBatchesPerTurn; batch++) {
      const pending = yield* index.unembedded(threadId, embedder.name, batchSize)
      const texts = pending.map((entry) => ({ ...entry, text: embeddable(textOf(entry.parts)) }))
      const withText = texts.filter((entry) => entry.text.trim() !== "")
      // Messages without text (tool calls only) get an empty vector, which searches skip: marked
      // done, they do not come back in every batch ahead of the messages after them.
      yield* index.putEmbeddings(
        embedder.name,
        texts.filter((entry) => entry.text.trim() === "").map((entry) => ({ ...entry, vector: [] })),
      )
      if (withText.length > 0) {
        const { embeddings } = yield* Effect.tryPromise({
          try: async (signal) =>
            (await loadAi()).embedMany({
              model: embedder.model,
              values: withText.map((entry) => entry.text),
              abortSignal: signal,
            }),
          catch: (error) => new EmbeddingFailed({ message: error instanceof Error ? error.message : String(error) }),
        })
        yield* index.putEmbeddings(
          embedder.name,
          withText.map((entry, n) => ({ entryId: entry.entryId, parts: entry.parts, vector: embeddings[n]! })),
        )
      }
      if (pending.length < batchSize) return
    }
  })

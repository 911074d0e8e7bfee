import type { EmbeddingModel } from "ai"
import { Context, Duration, Effect, FiberSet, Layer, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { type MemoryConfig, semanticRecallOn, splitModel } from "../../config/MemoryConfig.js"
import { ModelRegistry } from "../../models/ModelRegistry.js"
import type { StoredMessage, ThreadWindow } from "../../threads/Threads.js"
import { embedMessages, embedQuery } from "./internal/embedding.js"
import { recallSection } from "./internal/section.js"
import { queryTerms } from "./internal/terms.js"
import { type RecalledMessage, type RecallHit, RecallIndex } from "./RecallIndex.js"

/** Longest wait for the query's embedding before the turn goes on with full-text hits alone. */
const queryEmbeddingTimeout = Duration.seconds(2)

/**
 * Semantic recall (issue 11): before a turn, the messages of other threads most relevant to the
 * owner's latest message, with their neighbours, as a system prompt section; after a turn, the
 * new messages embedded in the background when an embedder is configured.
 *
 * Contract for an implementation (`Kernel.layer({ memoryLayer })`, beside `Memory`): `forTurn` runs
 * before the model call, so it must be quick and never fail (null on any trouble); `afterTurn`
 * returns at once, its work in the background.
 */
export class Recall extends Context.Tag("@aide/kernel/Recall")<
  Recall,
  {
    /** The section for this turn; null when recall is off or finds nothing. Never fails. */
    readonly forTurn: (turn: {
      readonly threadId: string
      /** The thread as the run read it (its newest messages, and reads of more). */
      readonly history: ThreadWindow
    }) => Effect.Effect<string | null>
    /** Starts embedding the thread's new messages in the background; returns at once. */
    readonly afterTurn: (threadId: string) => Effect.Effect<void>
  }
>() {}

/** Reciprocal rank fusion (k = 60): robust to the two searches' incomparable scores. */
const fuse = (lists: ReadonlyArray<ReadonlyArray<RecallHit>>, limit: number): ReadonlyArray<RecallHit> => {
  const scores = new Map<string, { hit: RecallHit; score: number }>()
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const entry = scores.get(hit.messageId) ?? { hit, score: 0 }
      entry.score += 1 / (60 + rank + 1)
      scores.set(hit.messageId, entry)
    })
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => entry.hit)
}

const latestUserText = (history: ReadonlyArray<StoredMessage>) => {
  const message = history.findLast((candidate) => candidate.role === "user")
  if (message === undefined) return ""
  return message.parts
    .filter((part): part is { type: "text"; text: string } => (part as { type?: unknown })?.type === "text")
    .map((part) => part.text)
    .join("\n")
}

export const make = Effect.gen(function* () {
  const index = yield* RecallIndex
  const appConfig = yield* AppConfig
  const models = yield* ModelRegistry
  // Background embeddings belong to the service: they outlive the run that started them.
  const fibers = yield* FiberSet.make()

  const embedderOf = (memory: MemoryConfig) =>
    Effect.gen(function* () {
      const name = memory.semanticRecall.embedder
      if (name === undefined || models.embeddingModel === undefined) return Option.none()
      const model: EmbeddingModel = yield* models.embeddingModel(splitModel(name))
      return Option.some({ name, model })
    })

  const search = (threadId: string, history: ThreadWindow) =>
    Effect.gen(function* () {
      const config = yield* appConfig.get
      if (!semanticRecallOn(config.memory)) return null
      const { topK, messageRange } = config.memory.semanticRecall
      // The owner's latest message is in the run's window but after a long run of answers.
      const newestUser = history.messages.some((message) => message.role === "user")
      const text = latestUserText(newestUser || history.before === 0 ? history.messages : yield* history.all)
      const scope = { excludeThreadId: threadId, limit: topK }
      const byText = index.searchText(queryTerms(text), scope)
      const byVector = Effect.flatMap(embedderOf(config.memory), (embedder) =>
        Option.isNone(embedder) || text.trim() === ""
          ? Effect.succeed([])
          : embedQuery(embedder.value.model, text).pipe(
              Effect.timeout(queryEmbeddingTimeout),
              Effect.flatMap((vector) => index.searchVector(embedder.value.name, vector, scope)),
            ),
      ).pipe(
        // A failing embedder leaves the turn with full-text hits: still recall, never a failed chat.
        Effect.catchAll((error) => Effect.as(Effect.logWarning("recall: the query could not be embedded", error), [])),
      )
      const [textHits, vectorHits] = yield* Effect.all([byText, byVector], { concurrency: 2 })
      const hits = fuse([vectorHits, textHits], topK)
      if (hits.length === 0) return null
      const windows: Array<readonly [string, ReadonlyArray<RecalledMessage>]> = []
      for (const hit of hits) windows.push([hit.threadId, yield* index.around(hit.threadId, hit.seq, messageRange)])
      // What this thread has too (a fork's copies keep their ids) is not recalled: asked of the
      // thread only for ids its window does not show.
      const shared = new Set(history.messages.map((message) => message.id))
      if (history.before > 0) {
        const outside = new Set<string>()
        for (const [, window] of windows) {
          for (const message of window) if (!shared.has(message.messageId)) outside.add(message.messageId)
        }
        if (outside.size > 0) for (const id of yield* history.holding([...outside])) shared.add(id)
      }
      const shown = new Set<string>()
      const threads = new Map<string, Array<RecalledMessage>>()
      for (const [hitThread, window] of windows) {
        const kept = window.filter((message) => !shared.has(message.messageId) && !shown.has(message.messageId))
        for (const message of kept) shown.add(message.messageId)
        threads.set(hitThread, [...(threads.get(hitThread) ?? []), ...kept])
      }
      const groups = [...threads.values()]
        .map((messages) => [...messages].sort((a, b) => a.seq - b.seq))
        .filter((messages) => messages.length > 0)
      return groups.length === 0 ? null : recallSection(groups, config.timezone)
    })

  const forTurn = (turn: { readonly threadId: string; readonly history: ThreadWindow }) =>
    search(turn.threadId, turn.history).pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("recall failed; answering without it", cause), null)),
      Effect.withSpan("Recall.forTurn"),
    )

  const afterTurn = (threadId: string) =>
    Effect.gen(function* () {
      const config = yield* appConfig.get
      if (!semanticRecallOn(config.memory) || config.memory.semanticRecall.embedder === undefined) return
      yield* FiberSet.run(
        fibers,
        Effect.flatMap(embedderOf(config.memory), (embedder) =>
          Option.isNone(embedder) ? Effect.void : embedMessages(index, embedder.value, threadId),
        ).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("recall: embedding new messages failed", cause)),
          Effect.annotateLogs({ threadId }),
        ),
      )
    })

  return Recall.of({ forTurn, afterTurn })
})

/** `Recall` over the `RecallIndex`, reading its switches from `AppConfig` and its embedder from `ModelRegistry`. */
export const layer: Layer.Layer<Recall, never, RecallIndex | AppConfig | ModelRegistry> = Layer.scoped(Recall, make)

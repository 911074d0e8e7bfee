import { Context, Effect, Layer } from "effect"
import type { StorageError } from "../../storage/StorageError.js"

/** A message the index found (searches return them best first). */
export interface RecallHit {
  readonly threadId: string
  readonly messageId: string
  readonly seq: number
}

/** A stored message as recall shows it, with its thread's title. */
export interface RecalledMessage {
  readonly threadId: string
  readonly threadTitle: string | null
  readonly messageId: string
  readonly seq: number
  readonly role: string
  readonly parts: string
  readonly createdAt: string
}

/** A message of a thread still without an embedding by `model`. */
export interface Unembedded {
  readonly entryId: number
  readonly parts: string
}

/** What every search leaves out: the current thread, and the messages it shares (forks keep ids). */
export interface SearchScope {
  readonly excludeThreadId: string
  readonly limit: number
}

/**
 * The recall index over the stored messages: full-text search always, vectors when an embedder
 * is configured. The SQL implementation is kept in sync with `messages` by triggers, so a
 * deleted thread is gone from every index in the same transaction.
 */
export class RecallIndex extends Context.Tag("@aide/kernel/RecallIndex")<
  RecallIndex,
  {
    /** Messages matching any of `terms` (plain words; the index quotes them), best first. */
    readonly searchText: (
      terms: ReadonlyArray<string>,
      scope: SearchScope,
    ) => Effect.Effect<ReadonlyArray<RecallHit>, StorageError>
    /** Messages whose embedding by `model` is nearest `vector` (cosine), best first. */
    readonly searchVector: (
      model: string,
      vector: ReadonlyArray<number>,
      scope: SearchScope,
    ) => Effect.Effect<ReadonlyArray<RecallHit>, StorageError>
    /** The messages of `threadId` from `seq - range` to `seq + range`, in order. */
    readonly around: (
      threadId: string,
      seq: number,
      range: number,
    ) => Effect.Effect<ReadonlyArray<RecalledMessage>, StorageError>
    /** Up to `limit` messages of `threadId` without an embedding by `model`. */
    readonly unembedded: (
      threadId: string,
      model: string,
      limit: number,
    ) => Effect.Effect<ReadonlyArray<Unembedded>, StorageError>
    /** Stores embeddings of `parts`; an entry deleted or rewritten since is skipped. */
    readonly putEmbeddings: (
      model: string,
      embeddings: ReadonlyArray<{
        readonly entryId: number
        readonly parts: string
        readonly vector: ReadonlyArray<number>
      }>,
    ) => Effect.Effect<void, StorageError>
  }
>() {}

/** An index that finds nothing: for a kernel whose messages are not in SQL (e.g. `MemoryThreads`). */
export const layerEmpty: Layer.Layer<RecallIndex> = Layer.succeed(
  RecallIndex,
  RecallIndex.of({
    searchText: () => Effect.succeed([]),
    searchVector: () => Effect.succeed([]),
    around: () => Effect.succeed([]),
    unembedded: () => Effect.succeed([]),
    putEmbeddings: () => Effect.void,
  }),
)

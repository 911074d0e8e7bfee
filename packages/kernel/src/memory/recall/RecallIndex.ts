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

/**
 * What every search leaves out: the current thread, and the messages it shares (forks keep ids):
 * searched from a fork, its source's messages cloned into it are not found in the source either
 * (only the source's messages after the fork point are). At most `limit` hits.
 */
export interface SearchScope {
  readonly excludeThreadId: string
  readonly limit: number
}

/**
 * The recall index over the stored messages: full-text search always, vectors when an embedder
 * is configured. The SQL implementation is kept in sync with `messages` by triggers, so a
 * deleted thread is gone from every index in the same transaction.
 *
 * The contract (`recallIndexContract` of `@aide/testing/effect`, run over the `Threads` the index
 * follows): every message saved, rewritten or deleted through `Threads` is indexed accordingly;
 * `RecalledMessage.parts` and `Unembedded.parts` are the message's `parts` as JSON text.
 */
export class RecallIndex extends Context.Tag("@aide/kernel/RecallIndex")<
  RecallIndex,
  {
    /**
     * Messages matching any of `terms`, best first, one hit per message, at most `limit`. A term
     * is only a word, matched regardless of case: full-text syntax in it (`"`, `*`, `NEAR(`,
     * `:`, `|`, parentheses, quotes) finds nothing and fails nothing. No terms: no hits.
     */
    readonly searchText: (
      terms: ReadonlyArray<string>,
      scope: SearchScope,
    ) => Effect.Effect<ReadonlyArray<RecallHit>, StorageError>
    /**
     * Messages with an embedding by `model` (only that model's), nearest `vector` by cosine
     * first, at most `limit`.
     */
    readonly searchVector: (
      model: string,
      vector: ReadonlyArray<number>,
      scope: SearchScope,
    ) => Effect.Effect<ReadonlyArray<RecallHit>, StorageError>
    /**
     * The messages of `threadId` from `seq - range` to `seq + range`, in order, each with its
     * role, its thread's current title and `createdAt` as an ISO string; `[]` for an unknown thread.
     */
    readonly around: (
      threadId: string,
      seq: number,
      range: number,
    ) => Effect.Effect<ReadonlyArray<RecalledMessage>, StorageError>
    /** Up to `limit` messages of `threadId` without an embedding by `model`, in thread order. */
    readonly unembedded: (
      threadId: string,
      model: string,
      limit: number,
    ) => Effect.Effect<ReadonlyArray<Unembedded>, StorageError>
    /**
     * Stores embeddings of `parts`; an entry deleted or rewritten since (its `parts` differ now)
     * is skipped, so it stays in `unembedded`.
     */
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

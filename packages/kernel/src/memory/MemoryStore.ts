import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A working memory document as stored: its text and its version (1 for the first write). */
export interface WorkingDocument {
  readonly content: string
  readonly version: number
  readonly updatedAt: Date
}

/**
 * Where memory is kept. Working memory is one markdown document per scope (`resource`: the
 * owner's, shared by every thread), written with compare-and-set on its version so concurrent
 * edits never overwrite each other unseen; earlier versions are kept so a bad edit can be undone.
 * `memoryStoreContract` of `@aide/testing/effect` checks the rules stated on each method.
 */
export class MemoryStore extends Context.Tag("@aide/kernel/MemoryStore")<
  MemoryStore,
  {
    /** The scope's current document; none before its first write. Scopes are independent. */
    readonly readWorking: (scope: string) => Effect.Effect<Option.Option<WorkingDocument>, StorageError>
    /**
     * Writes `content` as version `expectedVersion + 1` if the stored version is still
     * `expectedVersion` (0: none yet) and answers it; None (nothing written) when another
     * write came first: of concurrent writes expecting one version exactly one wins. The store
     * keeps the last `keepVersions` versions of the scope for `workingHistory`.
     */
    readonly writeWorking: (
      scope: string,
      content: string,
      expectedVersion: number,
      at: Date,
      keepVersions: number,
    ) => Effect.Effect<Option.Option<WorkingDocument>, StorageError>
    /**
     * The scope's kept versions, newest first: the last `keepVersions` written (the current one
     * included), only this scope's.
     */
    readonly workingHistory: (scope: string) => Effect.Effect<ReadonlyArray<WorkingDocument>, StorageError>
  }
>() {}

import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../../storage/StorageError.js"

/** A memory record's key: `resource` (one memory for every thread) or `thread:<id>`. */
export type RecordKey = string

export type ClaimKind = "observing" | "reflecting"

/** A memory record as stored: SPEC "Memory record" plus the claim and the circuit breaker. */
export interface RecordRow {
  readonly key: RecordKey
  readonly id: string
  readonly scope: "resource" | "thread"
  readonly observationTokenCount: number
  readonly generationCount: number
  readonly totalTokensObserved: number
  readonly lastObservedAt: Date | null
  readonly updatedAt: Date
  /** Who runs the observer or reflector now, until when (a lease, renewed while it runs). */
  readonly claim: { readonly kind: ClaimKind; readonly token: string; readonly until: Date } | null
  /** Consecutive failures of observer/reflector calls. */
  readonly failures: number
  /** The circuit breaker: no call before this. */
  readonly pausedUntil: Date | null
}

/** A message of a thread counted into a record (once per record and message id). */
export interface LedgerEntry {
  readonly threadId: string
  readonly messageId: string
  readonly tokens: number
  readonly createdAt: Date
}

/** Observations of one observer call, from the messages of one thread. */
export interface Chunk {
  readonly id: string
  readonly threadId: string
  readonly messageIds: ReadonlyArray<string>
  readonly content: string
  readonly tokens: number
  readonly createdAt: Date
}

/** The active observation log: the last reflection (if any), then the chunks observed since. */
export interface ActiveLog {
  readonly reflection: { readonly generation: number; readonly content: string; readonly tokens: number } | null
  readonly chunks: ReadonlyArray<Chunk>
}

/**
 * Where observational memory is kept. Every write that changes what is observed is one short
 * transaction that first locks the record row, and commits only while the writer's claim is
 * still its own (compare-and-set): no model call ever runs inside a transaction, and a message
 * is covered by at most one committed observation however many writers race.
 */
export class ObservationStore extends Context.Tag("@aide/kernel/ObservationStore")<
  ObservationStore,
  {
    /** The record, created empty when missing. */
    readonly ensureRecord: (
      key: RecordKey,
      scope: "resource" | "thread",
      id: string,
      now: Date,
    ) => Effect.Effect<RecordRow, StorageError>
    readonly record: (key: RecordKey) => Effect.Effect<Option.Option<RecordRow>, StorageError>
    /** The most recently updated record of thread scope. */
    readonly latestThreadRecord: Effect.Effect<Option.Option<RecordRow>, StorageError>
    /** Counts messages in (once per record, thread and message id); returns how many were new. */
    readonly ingest: (key: RecordKey, entries: ReadonlyArray<LedgerEntry>) => Effect.Effect<number, StorageError>
    /** Ids of the thread's messages the record has counted. */
    readonly countedIds: (key: RecordKey, threadId: string) => Effect.Effect<ReadonlySet<string>, StorageError>
    /** Ids of the thread's messages covered by a committed observation. */
    readonly observedIds: (key: RecordKey, threadId: string) => Effect.Effect<ReadonlySet<string>, StorageError>
    /** Unobserved message tokens of the record, each message once (fork copies share an id). */
    readonly pendingTokens: (key: RecordKey) => Effect.Effect<number, StorageError>
    /** Unobserved messages, oldest first, up to about `maxTokens` (at least one). */
    readonly pendingEntries: (
      key: RecordKey,
      maxTokens: number,
    ) => Effect.Effect<ReadonlyArray<LedgerEntry>, StorageError>
    /** Takes the claim if free (or its lease ran out) and the breaker is closed. */
    readonly claim: (
      key: RecordKey,
      kind: ClaimKind,
      token: string,
      now: Date,
      until: Date,
    ) => Effect.Effect<boolean, StorageError>
    /** Extends the lease; false when the claim is no longer this token's. */
    readonly renew: (key: RecordKey, token: string, until: Date) => Effect.Effect<boolean, StorageError>
    /** Gives the claim up; on failure counts it and opens the breaker until `pauseUntil`. */
    readonly release: (
      key: RecordKey,
      token: string,
      outcome: { readonly failed: boolean; readonly pauseAfter: number; readonly pauseUntil: Date },
    ) => Effect.Effect<void, StorageError>
    /** Every claim given up (a process that owns the storage alone, at start). */
    readonly releaseAllClaims: Effect.Effect<void, StorageError>
    /**
     * Commits an observation and gives the claim up: marks the messages observed (those still
     * counted and not yet observed), adds the chunk if any was. None when the claim was lost.
     */
    readonly commitObservation: (
      key: RecordKey,
      token: string,
      chunk: Chunk,
    ) => Effect.Effect<Option.Option<{ readonly coveredTokens: number }>, StorageError>
    readonly activeLog: (key: RecordKey) => Effect.Effect<ActiveLog, StorageError>
    /**
     * Commits a reflection of exactly `absorbed` (the active log read) as generation
     * `generation`, and gives the claim up. False when the claim was lost or the log changed.
     */
    readonly commitReflection: (
      key: RecordKey,
      token: string,
      reflection: {
        readonly generation: number
        readonly content: string
        readonly tokens: number
        readonly absorbed: ReadonlyArray<string>
        readonly createdAt: Date
      },
    ) => Effect.Effect<boolean, StorageError>
    /** Every reflection ever committed (audit), oldest first. */
    readonly reflections: (
      key: RecordKey,
    ) => Effect.Effect<ReadonlyArray<{ readonly generation: number; readonly content: string }>, StorageError>
    /**
     * Forgets observations none of whose messages is counted any longer (their threads were
     * deleted), and every reflection that absorbed one; the chunks those reflections absorbed
     * come back into the active log. Returns the keys that changed.
     */
    readonly forgetOrphans: (now: Date) => Effect.Effect<ReadonlyArray<RecordKey>, StorageError>
    /** Drops the counted messages of threads that no longer exist (stores that cannot trigger it). */
    readonly forgetThreads: (threadIds: ReadonlyArray<string>) => Effect.Effect<void, StorageError>
    /**
     * Thread scope: a fork's new record inherits the observations of `sourceKey` whose messages
     * were all copied into the fork (and they cover those copies). Only into a record with no
     * observation yet; returns how many were copied.
     */
    readonly inheritFork: (
      sourceKey: RecordKey,
      targetKey: RecordKey,
      threadId: string,
      newId: () => string,
      now: Date,
    ) => Effect.Effect<number, StorageError>
    /** Model tokens memory spent on `day` (`YYYY-MM-DD`, the owner's time zone). */
    readonly usage: (day: string) => Effect.Effect<number, StorageError>
    readonly addUsage: (day: string, tokens: number) => Effect.Effect<void, StorageError>
  }
>() {}

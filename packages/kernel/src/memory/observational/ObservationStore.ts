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
 *
 * The contract (`observationStoreContract` of `@aide/testing/effect` checks each rule): the store
 * reads no clock, every time is given. A message is its id: a fork's copy (another thread, the
 * same id) is counted as a row of its own but pending, and observed, as one message.
 */
export class ObservationStore extends Context.Tag("@aide/kernel/ObservationStore")<
  ObservationStore,
  {
    /**
     * The record, created empty when missing (`id` and `scope` as given, counts 0, no claim,
     * `updatedAt: now`, the rest null); when present, answered unchanged (the arguments ignored).
     */
    readonly ensureRecord: (
      key: RecordKey,
      scope: "resource" | "thread",
      id: string,
      now: Date,
    ) => Effect.Effect<RecordRow, StorageError>
    /** None before `ensureRecord`. */
    readonly record: (key: RecordKey) => Effect.Effect<Option.Option<RecordRow>, StorageError>
    /** The most recently updated record of thread scope (a newer `resource` record does not count). */
    readonly latestThreadRecord: Effect.Effect<Option.Option<RecordRow>, StorageError>
    /** Counts messages in (once per record, thread and message id); returns how many were new. */
    readonly ingest: (key: RecordKey, entries: ReadonlyArray<LedgerEntry>) => Effect.Effect<number, StorageError>
    /** Ids of the thread's messages the record has counted. */
    readonly countedIds: (key: RecordKey, threadId: string) => Effect.Effect<ReadonlySet<string>, StorageError>
    /** Ids of the thread's messages covered by a committed observation. */
    readonly observedIds: (key: RecordKey, threadId: string) => Effect.Effect<ReadonlySet<string>, StorageError>
    /** Unobserved message tokens of the record, each message once (fork copies share an id). */
    readonly pendingTokens: (key: RecordKey) => Effect.Effect<number, StorageError>
    /**
     * Unobserved messages, oldest `createdAt` first, each message once (its first counted row),
     * taken until their tokens reach `maxTokens` (the one reaching it included; at least one).
     */
    readonly pendingEntries: (
      key: RecordKey,
      maxTokens: number,
    ) => Effect.Effect<ReadonlyArray<LedgerEntry>, StorageError>
    /**
     * Takes the claim if the record exists, the claim is free (or its lease ran out before
     * `now`) and the breaker is closed (`pausedUntil` null or not after `now`). Of concurrent
     * claims exactly one answers true.
     */
    readonly claim: (
      key: RecordKey,
      kind: ClaimKind,
      token: string,
      now: Date,
      until: Date,
    ) => Effect.Effect<boolean, StorageError>
    /** Extends the lease; false when the claim is no longer this token's. */
    readonly renew: (key: RecordKey, token: string, until: Date) => Effect.Effect<boolean, StorageError>
    /**
     * Gives the claim up, only if `token` holds it (anyone else's call changes nothing); on
     * failure counts it (`failures`) and, from the `pauseAfter`th consecutive one, sets
     * `pausedUntil: pauseUntil` (no claim before it).
     */
    readonly release: (
      key: RecordKey,
      token: string,
      outcome: { readonly failed: boolean; readonly pauseAfter: number; readonly pauseUntil: Date },
    ) => Effect.Effect<void, StorageError>
    /** Every claim given up (a process that owns the storage alone, at start). */
    readonly releaseAllClaims: Effect.Effect<void, StorageError>
    /**
     * Commits an observation and gives the claim up: marks the messages observed (those still
     * counted and not yet observed), adds the chunk if any was, listing only those messages.
     * Answers the tokens of the messages newly covered; the record's `observationTokenCount`
     * grows by the chunk's tokens, `totalTokensObserved` by the covered ones, `lastObservedAt`
     * and `updatedAt` become the chunk's `createdAt`. A fork's copy counted later is observed
     * already. None (nothing changed) when the claim is not this token's.
     */
    readonly commitObservation: (
      key: RecordKey,
      token: string,
      chunk: Chunk,
    ) => Effect.Effect<Option.Option<{ readonly coveredTokens: number }>, StorageError>
    /** The last reflection (`null` before any) and the chunks since, in commit order, as committed. */
    readonly activeLog: (key: RecordKey) => Effect.Effect<ActiveLog, StorageError>
    /**
     * Commits a reflection of exactly `absorbed` (the active log read) as generation
     * `generation`, and gives the claim up: the active log becomes that reflection and no
     * chunk; `generationCount` becomes `generation`, `observationTokenCount` the reflection's
     * tokens, `updatedAt` its `createdAt`. False (nothing changed) when the claim is not this
     * token's or the log changed (a chunk not in `absorbed` came since).
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
     * come back into the active log (the counts follow; `updatedAt: now`). Returns the keys
     * that changed (`[]` when nothing did).
     */
    readonly forgetOrphans: (now: Date) => Effect.Effect<ReadonlyArray<RecordKey>, StorageError>
    /** Drops the counted messages of threads that no longer exist (stores that cannot trigger it). */
    readonly forgetThreads: (threadIds: ReadonlyArray<string>) => Effect.Effect<void, StorageError>
    /**
     * Thread scope: a fork's new record inherits the observations of `sourceKey` whose messages
     * were all copied into the fork (and they cover those copies). Only into a record with no
     * observation yet; returns how many were copied (0 otherwise). Each copy gets an id from
     * `newId`, `threadId` and `createdAt: now`, and counts into the target record
     * (`observationTokenCount`, `totalTokensObserved`, `lastObservedAt: now`).
     */
    readonly inheritFork: (
      sourceKey: RecordKey,
      targetKey: RecordKey,
      threadId: string,
      newId: () => string,
      now: Date,
    ) => Effect.Effect<number, StorageError>
    /** Model tokens memory spent on `day` (`YYYY-MM-DD`, the owner's time zone): the sum of its `addUsage`, 0 at first. */
    readonly usage: (day: string) => Effect.Effect<number, StorageError>
    readonly addUsage: (day: string, tokens: number) => Effect.Effect<void, StorageError>
  }
>() {}

import { Context, type Effect } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A task's runtime state: how often it ran and where its next due time is counted from. */
export interface TaskState {
  readonly runCount: number
  /** Latest due time claimed (or the time the task was first seen), epoch ms: the next run comes after it. */
  readonly cursor: number
}

export type RunStatus = "running" | "succeeded" | "failed" | "skipped"

/** How a claimed run ended. */
export interface RunOutcome {
  readonly status: Exclude<RunStatus, "running">
  readonly error?: string | null
  readonly inboxMessageId?: string | null
}

/** A due time to claim: `running` starts a run (it counts), `skipped` only records why it did not. */
export interface ClaimRequest {
  readonly taskId: string
  /** Epoch ms. */
  readonly dueAt: number
  readonly status: "running" | "skipped"
  /** Who claims it (the scheduler instance), for operators reading the ledger. */
  readonly owner: string
  /** Epoch ms. */
  readonly now: number
}

/** A won claim carries the task's run count, this run included; a lost one (claimed earlier, or by another replica) nothing. */
export type ClaimResult = { readonly claimed: true; readonly runCount: number } | { readonly claimed: false }

/** One row of the ledger, as operators and tests read it. */
export interface RunRecord {
  /** Epoch ms. */
  readonly dueAt: number
  readonly status: RunStatus
  readonly error: string | null
  readonly inboxMessageId: string | null
}

/**
 * The scheduler's durable memory: each task's run count and cursor, and the run ledger, one entry
 * per task and due time. Claiming a due time is the one decision that must be atomic: exactly one
 * claimant wins it, so a due time runs at most once whatever restarts, crashes or replicas happen.
 * All times are epoch milliseconds, given by the caller (the ledger reads no clock). Rules
 * `runLedgerContract` of `@aide/testing/effect` checks are stated on each method.
 *
 * @example
 * // The default kernel uses `SqlRunLedger.layer`; another store is a Layer of this Tag:
 * Scheduler.layer(options).pipe(Layer.provide(myLedgerLayer))
 */
export class RunLedger extends Context.Tag("@aide/kernel/RunLedger")<
  RunLedger,
  {
    /** Every task's state, by task id (empty at first). */
    readonly states: Effect.Effect<ReadonlyMap<string, TaskState>, StorageError>
    /** Starts the task's state at `cursor` (run count 0) unless it has one: then nothing changes. */
    readonly ensureState: (taskId: string, cursor: number) => Effect.Effect<void, StorageError>
    /**
     * Sets the task's cursor (back or forward), keeping its run count; creates its state (run
     * count 0) if needed (a changed schedule owes nothing from before).
     */
    readonly moveCursor: (taskId: string, cursor: number) => Effect.Effect<void, StorageError>
    /**
     * Claims the due time: on a win, records it with `status`, moves the cursor to it (never
     * back: a late claim of an earlier due time leaves it), creating the task's state if needed,
     * and, for `running`, counts the run; a `skipped` claim answers the count unchanged. A due
     * time is won once per task: a second claim, whoever makes it, answers `{ claimed: false }`
     * and changes nothing; of concurrent claims exactly one wins. A new entry has `error` and
     * `inboxMessageId` null.
     */
    readonly claim: (request: ClaimRequest) => Effect.Effect<ClaimResult, StorageError>
    /**
     * Records how the run of a claimed due time ended, on that entry only: its status, `error`
     * and `inboxMessageId` (null when not given).
     */
    readonly finish: (
      taskId: string,
      dueAt: number,
      outcome: RunOutcome,
      now: number,
    ) => Effect.Effect<void, StorageError>
    /**
     * Tasks with a run in progress anywhere: `running`, claimed (its `now`) less than
     * `staleAfterMillis` before `now`.
     */
    readonly runningTaskIds: (now: number, staleAfterMillis: number) => Effect.Effect<ReadonlySet<string>, StorageError>
    /**
     * Marks runs left `running` for `staleAfterMillis` or longer (their process stopped) as
     * `failed` with error `"abandoned (the process stopped)"`; younger runs stay `running`.
     */
    readonly failAbandoned: (now: number, staleAfterMillis: number) => Effect.Effect<void, StorageError>
    /** Drops finished runs that started more than `keepMillis` before `now`; never a `running` one, however old. */
    readonly pruneFinished: (now: number, keepMillis: number) => Effect.Effect<void, StorageError>
    /** Drops the state of a task that no longer exists (its ledger entries stay until pruned); other tasks keep theirs. */
    readonly forgetTask: (taskId: string) => Effect.Effect<void, StorageError>
    /** The ledger of one task, newest due time first; `[]` for a task without entries. */
    readonly runs: (taskId: string) => Effect.Effect<ReadonlyArray<RunRecord>, StorageError>
  }
>() {}

import { Context, type Effect, type Option, Schema } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A tool call waiting for (or given) the owner's decision. */
export interface ApprovalCall {
  readonly toolCallId: string
  /** The AI SDK's approval id (`approval.id` of the tool part); the SDK generates it. */
  readonly approvalId: string
  readonly toolName: string
  /** null while undecided. */
  readonly approved: boolean | null
}

export type RunStatus = "suspended" | "resumed" | "superseded"

/**
 * A run that ended in `approval-requested`: its assistant message holds the tool calls, and it
 * waits for a decision on each. `resumed` and `superseded` are final: a run resumes once.
 */
export interface SuspendedRun {
  readonly runId: string
  readonly threadId: string
  /** The assistant message holding the tool calls; the continuation keeps its id. */
  readonly messageId: string
  readonly status: RunStatus
  readonly calls: ReadonlyArray<ApprovalCall>
  readonly createdAt: Date
}

export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", {
  runId: Schema.String,
}) {}

/** The run was resumed already (or superseded by a newer message): its decisions are final. */
export class RunNotPending extends Schema.TaggedError<RunNotPending>()("RunNotPending", {
  runId: Schema.String,
  status: Schema.String,
}) {}

export class ToolCallNotFound extends Schema.TaggedError<ToolCallNotFound>()("ToolCallNotFound", {
  runId: Schema.String,
  toolCallId: Schema.String,
}) {}

/** A decision was already recorded for this tool call; it stands. */
export class ToolCallDecided extends Schema.TaggedError<ToolCallDecided>()("ToolCallDecided", {
  runId: Schema.String,
  toolCallId: Schema.String,
}) {}

/**
 * The durable state machine of tool approvals: suspended runs and a decision per tool call.
 * Every transition is one conditional write, so two concurrent approvals cannot both win.
 * `chatRunsContract` of `@aide/testing/effect` checks the rules stated on each method.
 */
export class ChatRuns extends Context.Tag("@aide/kernel/ChatRuns")<
  ChatRuns,
  {
    /**
     * Runs `effect` in one storage transaction (e.g. saving the message with its run): when it
     * fails, none of its writes stay (a run it suspended is not there).
     */
    readonly atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
    /** Records a run that paused on `calls`: status `suspended`, calls all undecided (`approved: null`), in the given order. */
    readonly suspend: (run: {
      readonly runId: string
      readonly threadId: string
      readonly messageId: string
      readonly calls: ReadonlyArray<Omit<ApprovalCall, "approved">>
    }) => Effect.Effect<void, StorageError>
    /** The run whatever its status; none for an unknown id. */
    readonly get: (runId: string) => Effect.Effect<Option.Option<SuspendedRun>, StorageError>
    /**
     * The run and call of an approval id in `threadId`: clients may name a decision by the
     * approval id the stream showed (`approval.id` of the tool part) instead of the run id.
     */
    readonly findApproval: (
      threadId: string,
      approvalId: string,
    ) => Effect.Effect<Option.Option<{ readonly runId: string; readonly toolCallId: string }>, StorageError>
    /**
     * Decides `toolCallId`, or every undecided call of the run when it is omitted. Only a
     * suspended run takes decisions, and a decided call keeps its first decision: deciding it
     * again the same way succeeds (answers the run unchanged), the other way fails with
     * `ToolCallDecided`; of concurrent opposite decisions on one call exactly one succeeds.
     * Answers the run after the decision. Fails with `RunNotFound` (unknown run),
     * `ToolCallNotFound` (no such call in it), `RunNotPending` (resumed or superseded).
     */
    readonly decide: (
      runId: string,
      toolCallId: string | undefined,
      approved: boolean,
    ) => Effect.Effect<SuspendedRun, RunNotFound | RunNotPending | ToolCallNotFound | ToolCallDecided | StorageError>
    /**
     * Marks a fully decided, suspended run `resumed`; true for exactly one caller however many
     * try at once; false while a call is undecided, and for a superseded run.
     */
    readonly claimResume: (runId: string) => Effect.Effect<boolean, StorageError>
    /** The thread's runs still `suspended` (not resumed or superseded), oldest first. */
    readonly suspendedIn: (threadId: string) => Effect.Effect<ReadonlyArray<SuspendedRun>, StorageError>
    /**
     * Ends a suspended run because the conversation moved on: status `superseded`, its
     * undecided calls denied (`approved: false`), decided ones kept.
     */
    readonly supersede: (runId: string) => Effect.Effect<void, StorageError>
  }
>() {}

import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import { sqlErrorsAsStorage } from "../storage/StorageError.js"
import {
  type ApprovalCall,
  ChatRuns,
  RunNotFound,
  RunNotPending,
  type RunStatus,
  type SuspendedRun,
  ToolCallDecided,
  ToolCallNotFound,
} from "./ChatRuns.js"
import { schema } from "./chatRunsSchema.js"

interface RunRow {
  readonly runId: string
  readonly threadId: string
  readonly messageId: string
  readonly status: RunStatus
  readonly createdAt: string
}

interface CallRow {
  readonly runId: string
  readonly toolCallId: string
  readonly approvalId: string
  readonly toolName: string
  readonly approved: number | boolean | null
}

const toCall = (row: CallRow): ApprovalCall => ({
  toolCallId: row.toolCallId,
  approvalId: row.approvalId,
  toolName: row.toolName,
  approved: row.approved === null ? null : Boolean(row.approved),
})

/** `ChatRuns` on the kernel's `SqlClient` (tables `chat_runs`, `chat_run_calls`). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

  const withCalls = (runs: ReadonlyArray<RunRow>) =>
    Effect.gen(function* () {
      if (runs.length === 0) return []
      const calls = yield* sql<CallRow>`
        SELECT run_id AS "runId", tool_call_id AS "toolCallId", approval_id AS "approvalId",
               tool_name AS "toolName", approved
        FROM chat_run_calls WHERE ${sql.in(
          "run_id",
          runs.map((run) => run.runId),
        )} ORDER BY seq`
      return runs.map(
        (run): SuspendedRun => ({
          runId: run.runId,
          threadId: run.threadId,
          messageId: run.messageId,
          status: run.status,
          createdAt: new Date(run.createdAt),
          calls: calls.filter((call) => call.runId === run.runId).map(toCall),
        }),
      )
    })

  const runColumns = sql`id AS "runId", thread_id AS "threadId", message_id AS "messageId", status, created_at AS "createdAt"`

  const find = (runId: string) =>
    sql<RunRow>`SELECT ${runColumns} FROM chat_runs WHERE id = ${runId}`.pipe(
      Effect.flatMap(withCalls),
      Effect.map((runs) => Option.fromNullable(runs[0])),
    )

  const suspend = Effect.fn("ChatRuns.suspend")(function* (run: {
    readonly runId: string
    readonly threadId: string
    readonly messageId: string
    readonly calls: ReadonlyArray<Omit<ApprovalCall, "approved">>
  }) {
    const at = yield* now
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`INSERT INTO chat_runs (id, thread_id, message_id, status, created_at, updated_at)
                   VALUES (${run.runId}, ${run.threadId}, ${run.messageId}, 'suspended', ${at}, ${at})`
        let seq = 0
        for (const call of run.calls) {
          yield* sql`INSERT INTO chat_run_calls (run_id, tool_call_id, approval_id, tool_name, seq)
                     VALUES (${run.runId}, ${call.toolCallId}, ${call.approvalId}, ${call.toolName}, ${seq++})`
        }
      }),
    )
  }, sqlErrorsAsStorage("recording a suspended run"))

  const get = Effect.fn("ChatRuns.get")(function* (runId: string) {
    return yield* find(runId)
  }, sqlErrorsAsStorage("reading a run"))

  const findApproval = Effect.fn("ChatRuns.findApproval")(function* (threadId: string, approvalId: string) {
    const rows = yield* sql<{ readonly runId: string; readonly toolCallId: string }>`
      SELECT c.run_id AS "runId", c.tool_call_id AS "toolCallId"
      FROM chat_run_calls c JOIN chat_runs r ON r.id = c.run_id
      WHERE r.thread_id = ${threadId} AND c.approval_id = ${approvalId}
      ORDER BY r.created_at DESC`
    return Option.fromNullable(rows[0])
  }, sqlErrorsAsStorage("finding an approval"))

  const requireSuspended = (runId: string) =>
    Effect.gen(function* () {
      const run = yield* find(runId)
      if (Option.isNone(run)) return yield* new RunNotFound({ runId })
      if (run.value.status !== "suspended") {
        return yield* new RunNotPending({ runId, status: run.value.status })
      }
      return run.value
    })

  const decide = Effect.fn("ChatRuns.decide")(function* (
    runId: string,
    toolCallId: string | undefined,
    approved: boolean,
  ) {
    const run = yield* requireSuspended(runId)
    const at = yield* now
    const value = approved ? 1 : 0
    // Conditional on the run still being suspended: a decision never lands after the resume.
    const stillSuspended = sql`EXISTS (SELECT 1 FROM chat_runs WHERE id = ${runId} AND status = 'suspended')`
    if (toolCallId !== undefined) {
      const call = run.calls.find((candidate) => candidate.toolCallId === toolCallId)
      if (call === undefined) return yield* new ToolCallNotFound({ runId, toolCallId })
      const updated = yield* sql`
        UPDATE chat_run_calls SET approved = ${value}, decided_at = ${at}
        WHERE run_id = ${runId} AND tool_call_id = ${toolCallId} AND approved IS NULL AND ${stillSuspended}
        RETURNING tool_call_id`
      if (updated.length === 0) {
        const now = yield* requireSuspended(runId)
        const decided = now.calls.find((candidate) => candidate.toolCallId === toolCallId)
        // The same decision sent again (a client retrying after a lost answer) is not a conflict.
        if (decided?.approved !== approved) return yield* new ToolCallDecided({ runId, toolCallId })
        return now
      }
    } else {
      yield* sql`
        UPDATE chat_run_calls SET approved = ${value}, decided_at = ${at}
        WHERE run_id = ${runId} AND approved IS NULL AND ${stillSuspended}`
    }
    return yield* requireSuspended(runId)
  }, sqlErrorsAsStorage("deciding a tool call"))

  const claimResume = Effect.fn("ChatRuns.claimResume")(function* (runId: string) {
    const at = yield* now
    const claimed = yield* sql`
      UPDATE chat_runs SET status = 'resumed', updated_at = ${at}
      WHERE id = ${runId} AND status = 'suspended'
        AND NOT EXISTS (SELECT 1 FROM chat_run_calls WHERE run_id = ${runId} AND approved IS NULL)
      RETURNING id`
    return claimed.length === 1
  }, sqlErrorsAsStorage("resuming a run"))

  const suspendedIn = Effect.fn("ChatRuns.suspendedIn")(function* (threadId: string) {
    const runs = yield* sql<RunRow>`
      SELECT ${runColumns} FROM chat_runs
      WHERE thread_id = ${threadId} AND status = 'suspended' ORDER BY created_at, id`
    return yield* withCalls(runs)
  }, sqlErrorsAsStorage("reading suspended runs"))

  const supersede = Effect.fn("ChatRuns.supersede")(function* (runId: string) {
    const at = yield* now
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`UPDATE chat_run_calls SET approved = 0, decided_at = ${at} WHERE run_id = ${runId} AND approved IS NULL`
        yield* sql`UPDATE chat_runs SET status = 'superseded', updated_at = ${at} WHERE id = ${runId} AND status = 'suspended'`
      }),
    )
  }, sqlErrorsAsStorage("superseding a run"))

  const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    sqlErrorsAsStorage("a storage transaction")(sql.withTransaction(effect))

  return ChatRuns.of({ atomically, suspend, get, findApproval, decide, claimResume, suspendedIn, supersede })
})

export const layer: Layer.Layer<ChatRuns, StorageError, SqlClient.SqlClient> = Layer.effect(
  ChatRuns,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

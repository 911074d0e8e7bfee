import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import { type ClaimRequest, RunLedger, type RunOutcome, type RunStatus } from "./RunLedger.js"
import { schema } from "./runLedgerSchema.js"

/**
 * `RunLedger` over any `SqlClient` dialect (SQLite, PostgreSQL), in the tables of migration
 * `0007_schedule`: `schedule_runs` (the ledger) and `schedule_state` (run count and cursor).
 * Times are stored as ISO 8601 text, which orders correctly in every dialect.
 */

const iso = (millis: number) => new Date(millis).toISOString()

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const states = sql<{ readonly taskId: string; readonly runCount: number | string; readonly cursorAt: string }>`
    SELECT task_id AS "taskId", run_count AS "runCount", cursor_at AS "cursorAt" FROM schedule_state`.pipe(
    Effect.map(
      (rows) =>
        new Map(rows.map((row) => [row.taskId, { runCount: Number(row.runCount), cursor: Date.parse(row.cursorAt) }])),
    ),
    orStorageError("reading the schedule state"),
  )

  const ensureState = (taskId: string, cursor: number) =>
    sql`INSERT INTO schedule_state (task_id, run_count, cursor_at) VALUES (${taskId}, 0, ${iso(cursor)})
        ON CONFLICT (task_id) DO NOTHING`.pipe(Effect.asVoid, orStorageError("creating the schedule state"))

  const moveCursor = (taskId: string, cursor: number) =>
    sql`INSERT INTO schedule_state (task_id, run_count, cursor_at) VALUES (${taskId}, 0, ${iso(cursor)})
        ON CONFLICT (task_id) DO UPDATE SET cursor_at = ${iso(cursor)}`.pipe(
      Effect.asVoid,
      orStorageError("resetting the schedule cursor"),
    )

  // The primary key (task_id, due_at) decides the race: of concurrent inserts of one due time,
  // exactly one inserts a row, in any dialect and across replicas. Only the winner then counts
  // the run, in the same transaction, so a crash between the two cannot lose or double a count.
  const claim = ({ taskId, dueAt, status, owner, now }: ClaimRequest) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const inserted = yield* sql<{ readonly taskId: string }>`
            INSERT INTO schedule_runs (task_id, due_at, status, claimed_by, started_at)
            VALUES (${taskId}, ${iso(dueAt)}, ${status}, ${owner}, ${iso(now)})
            ON CONFLICT (task_id, due_at) DO NOTHING
            RETURNING task_id AS "taskId"`
          if (inserted.length === 0) return { claimed: false } as const
          const increment = status === "running" ? 1 : 0
          const rows = yield* sql<{ readonly runCount: number | string }>`
            INSERT INTO schedule_state (task_id, run_count, cursor_at, last_run_at)
            VALUES (${taskId}, ${increment}, ${iso(dueAt)}, ${status === "running" ? iso(now) : null})
            ON CONFLICT (task_id) DO UPDATE SET
              run_count = schedule_state.run_count + ${increment},
              cursor_at = CASE WHEN schedule_state.cursor_at < ${iso(dueAt)} THEN ${iso(dueAt)}
                          ELSE schedule_state.cursor_at END,
              last_run_at = COALESCE(${status === "running" ? iso(now) : null}, schedule_state.last_run_at)
            RETURNING run_count AS "runCount"`
          return { claimed: true, runCount: Number(rows[0]?.runCount ?? 0) } as const
        }),
      )
      .pipe(orStorageError("claiming a scheduled run"))

  const finish = (taskId: string, dueAt: number, outcome: RunOutcome, now: number) =>
    sql`UPDATE schedule_runs
        SET status = ${outcome.status}, finished_at = ${iso(now)}, error = ${outcome.error ?? null},
            inbox_message_id = ${outcome.inboxMessageId ?? null}
        WHERE task_id = ${taskId} AND due_at = ${iso(dueAt)}`.pipe(
      Effect.asVoid,
      orStorageError("recording a scheduled run"),
    )

  const runningTaskIds = (now: number, staleAfterMillis: number) =>
    sql<{ readonly taskId: string }>`
      SELECT DISTINCT task_id AS "taskId" FROM schedule_runs
      WHERE status = 'running' AND started_at > ${iso(now - staleAfterMillis)}`.pipe(
      Effect.map((rows): ReadonlySet<string> => new Set(rows.map((row) => row.taskId))),
      orStorageError("reading running tasks"),
    )

  const failAbandoned = (now: number, staleAfterMillis: number) =>
    sql`UPDATE schedule_runs SET status = 'failed', finished_at = ${iso(now)}, error = ${"abandoned (the process stopped)"}
        WHERE status = 'running' AND started_at <= ${iso(now - staleAfterMillis)}`.pipe(
      Effect.asVoid,
      orStorageError("closing abandoned runs"),
    )

  const pruneFinished = (now: number, keepMillis: number) =>
    sql`DELETE FROM schedule_runs WHERE status <> 'running' AND started_at < ${iso(now - keepMillis)}`.pipe(
      Effect.asVoid,
      orStorageError("pruning the run ledger"),
    )

  const forgetTask = (taskId: string) =>
    sql`DELETE FROM schedule_state WHERE task_id = ${taskId}`.pipe(
      Effect.asVoid,
      orStorageError("forgetting a task's state"),
    )

  const runs = (taskId: string) =>
    sql<{
      readonly dueAt: string
      readonly status: RunStatus
      readonly error: string | null
      readonly inboxMessageId: string | null
    }>`SELECT due_at AS "dueAt", status, error, inbox_message_id AS "inboxMessageId"
       FROM schedule_runs WHERE task_id = ${taskId} ORDER BY due_at DESC`.pipe(
      Effect.map((rows) => rows.map((row) => ({ ...row, dueAt: Date.parse(row.dueAt) }))),
      orStorageError("reading the run ledger"),
    )

  return RunLedger.of({
    states,
    ensureState,
    moveCursor,
    claim,
    finish,
    runningTaskIds,
    failAbandoned,
    pruneFinished,
    forgetTask,
    runs,
  })
})

/** The run ledger in the kernel's SQL storage (the default). */
export const layer: Layer.Layer<RunLedger, StorageError, SqlClient.SqlClient> = Layer.effect(
  RunLedger,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

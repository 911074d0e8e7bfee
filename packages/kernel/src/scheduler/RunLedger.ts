import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { orStorageError } from "../storage/StorageError.js"

/**
 * The scheduler's tables (`0007_schedule`): the run ledger and per-task state. A due time is
 * claimed by inserting `(task_id, due_at)`; the primary key lets exactly one process win, so a
 * due time runs at most once whatever restarts, crashes or replicas happen.
 */

export interface TaskState {
  readonly runCount: number
  /** Latest due time claimed (or the time the task was first seen): the next run comes after it. */
  readonly cursor: number
}

export type RunStatus = "running" | "succeeded" | "failed" | "skipped"

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

  /** Creates the task's state with this cursor unless it exists. */
  const ensure = (taskId: string, cursor: number) =>
    sql`INSERT INTO schedule_state (task_id, run_count, cursor_at) VALUES (${taskId}, 0, ${iso(cursor)})
        ON CONFLICT (task_id) DO NOTHING`.pipe(Effect.asVoid, orStorageError("creating the schedule state"))

  /** Moves the cursor (a schedule changed or was re-enabled: what was missed before is not caught up). */
  const resetCursor = (taskId: string, cursor: number) =>
    sql`INSERT INTO schedule_state (task_id, run_count, cursor_at) VALUES (${taskId}, 0, ${iso(cursor)})
        ON CONFLICT (task_id) DO UPDATE SET cursor_at = ${iso(cursor)}`.pipe(
      Effect.asVoid,
      orStorageError("resetting the schedule cursor"),
    )

  /**
   * Claims the due time: true and the new run count when this process won it, false when it was
   * already claimed (earlier, or by another replica). A `skipped` claim does not count as a run.
   */
  const claim = (taskId: string, dueAt: number, status: "running" | "skipped", owner: string, now: number) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const inserted = yield* sql<{ readonly taskId: string }>`
            INSERT INTO schedule_runs (task_id, due_at, status, claimed_by, started_at)
            VALUES (${taskId}, ${iso(dueAt)}, ${status}, ${owner}, ${iso(now)})
            ON CONFLICT (task_id, due_at) DO NOTHING
            RETURNING task_id AS "taskId"`
          if (inserted.length === 0) return { claimed: false, runCount: 0 } as const
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

  const finish = (
    taskId: string,
    dueAt: number,
    outcome: {
      readonly status: Exclude<RunStatus, "running">
      readonly error?: string | null
      readonly inboxMessageId?: string | null
    },
    now: number,
  ) =>
    sql`UPDATE schedule_runs
        SET status = ${outcome.status}, finished_at = ${iso(now)}, error = ${outcome.error ?? null},
            inbox_message_id = ${outcome.inboxMessageId ?? null}
        WHERE task_id = ${taskId} AND due_at = ${iso(dueAt)}`.pipe(
      Effect.asVoid,
      orStorageError("recording a scheduled run"),
    )

  /** Tasks with a run in progress anywhere: started within `staleAfterMillis` and not finished. */
  const running = (now: number, staleAfterMillis: number) =>
    sql<{ readonly taskId: string }>`
      SELECT DISTINCT task_id AS "taskId" FROM schedule_runs
      WHERE status = 'running' AND started_at > ${iso(now - staleAfterMillis)}`.pipe(
      Effect.map((rows) => new Set(rows.map((row) => row.taskId))),
      orStorageError("reading running tasks"),
    )

  /** Marks runs a crashed process left `running` for longer than `staleAfterMillis` as failed. */
  const failStale = (now: number, staleAfterMillis: number) =>
    sql`UPDATE schedule_runs SET status = 'failed', finished_at = ${iso(now)}, error = ${"abandoned (the process stopped)"}
        WHERE status = 'running' AND started_at <= ${iso(now - staleAfterMillis)}`.pipe(
      Effect.asVoid,
      orStorageError("closing abandoned runs"),
    )

  /** Drops ledger rows older than `keepMillis` (finished ones only). */
  const prune = (now: number, keepMillis: number) =>
    sql`DELETE FROM schedule_runs WHERE status <> 'running' AND started_at < ${iso(now - keepMillis)}`.pipe(
      Effect.asVoid,
      orStorageError("pruning the run ledger"),
    )

  const forget = (taskId: string) =>
    sql`DELETE FROM schedule_state WHERE task_id = ${taskId}`.pipe(
      Effect.asVoid,
      orStorageError("forgetting a task's state"),
    )

  /** The ledger of one task, newest first (for tests and operators). */
  const runs = (taskId: string) =>
    sql<{
      readonly dueAt: string
      readonly status: RunStatus
      readonly error: string | null
      readonly inboxMessageId: string | null
    }>`SELECT due_at AS "dueAt", status, error, inbox_message_id AS "inboxMessageId"
       FROM schedule_runs WHERE task_id = ${taskId} ORDER BY due_at DESC`.pipe(orStorageError("reading the run ledger"))

  return { states, ensure, resetCursor, claim, finish, running, failStale, prune, forget, runs }
})

export type RunLedger = Effect.Effect.Success<typeof make>

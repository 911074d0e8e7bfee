import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * The scheduler's runtime state (the tasks themselves live in the config document).
 * `schedule_runs` is the run ledger: one row per task and due time, its primary key being the
 * claim that makes a due time fire at most once across restarts and replicas. `schedule_state`
 * holds per task the run count and the cursor (the latest due time claimed), from which the
 * next due time and the restart catch-up are computed. The heartbeat uses task id `heartbeat`.
 */
const scheduleTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE schedule_runs (
    task_id TEXT NOT NULL,
    due_at TEXT NOT NULL,
    status TEXT NOT NULL,
    claimed_by TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    inbox_message_id TEXT,
    PRIMARY KEY (task_id, due_at)
  )`
  yield* sql`CREATE INDEX schedule_runs_running ON schedule_runs (task_id, started_at) WHERE status = 'running'`
  yield* sql`CREATE TABLE schedule_state (
    task_id TEXT PRIMARY KEY,
    run_count INTEGER NOT NULL DEFAULT 0,
    cursor_at TEXT NOT NULL,
    last_run_at TEXT
  )`
})

/**
 * The tables of `SqlRunLedger`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.run_ledger",
  migrations: [{ id: 7, name: "schedule", up: scheduleTables, legacyId: 7 }],
}

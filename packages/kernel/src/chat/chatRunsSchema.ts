import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"
import { schema as threads } from "../threads/threadsSchema.js"

/**
 * Tool approvals: a run that paused on tool calls needing the owner's decision, and one row per
 * call. Decisions are conditional updates (`approved IS NULL`), so they are final and race-free.
 */
const chatRunTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE chat_runs (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX chat_runs_suspended ON chat_runs (thread_id) WHERE status = 'suspended'`
  yield* sql`CREATE TABLE chat_run_calls (
    run_id TEXT NOT NULL REFERENCES chat_runs (id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    approved INTEGER,
    decided_at TEXT,
    PRIMARY KEY (run_id, tool_call_id)
  )`
})

/**
 * Chat runs stop referencing `threads` by foreign key: the run store and the thread store are
 * separate Tags, and an embedder may keep threads elsewhere (a foreign key would refuse every
 * suspended run there). Deleting a thread held in SQL still deletes its runs, by trigger.
 * SQLite cannot drop a constraint: both tables are rebuilt (`chat_run_calls` first, so dropping
 * the old `chat_runs` cascades into nothing), then renamed, which rewrites the reference.
 */
const chatRunsOwnStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql`ALTER TABLE chat_runs DROP CONSTRAINT IF EXISTS chat_runs_thread_id_fkey`
        yield* sql.unsafe(`CREATE FUNCTION chat_runs_thread_deleted() RETURNS trigger LANGUAGE plpgsql AS $body$
          BEGIN
            DELETE FROM chat_runs WHERE thread_id = OLD.id;
            RETURN NULL;
          END
        $body$`)
        yield* sql`CREATE TRIGGER threads_runs_deleted AFTER DELETE ON threads
                   FOR EACH ROW EXECUTE FUNCTION chat_runs_thread_deleted()`
      }),
    orElse: () =>
      Effect.gen(function* () {
        yield* sql`CREATE TABLE chat_runs_next (
          id TEXT PRIMARY KEY,
          thread_id TEXT NOT NULL,
          message_id TEXT NOT NULL,
          status TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        )`
        yield* sql`INSERT INTO chat_runs_next (id, thread_id, message_id, status, created_at, updated_at)
                   SELECT id, thread_id, message_id, status, created_at, updated_at FROM chat_runs`
        yield* sql`CREATE TABLE chat_run_calls_next (
          run_id TEXT NOT NULL REFERENCES chat_runs_next (id) ON DELETE CASCADE,
          tool_call_id TEXT NOT NULL,
          approval_id TEXT NOT NULL,
          tool_name TEXT NOT NULL,
          seq INTEGER NOT NULL,
          approved INTEGER,
          decided_at TEXT,
          PRIMARY KEY (run_id, tool_call_id)
        )`
        yield* sql`INSERT INTO chat_run_calls_next
                   SELECT run_id, tool_call_id, approval_id, tool_name, seq, approved, decided_at FROM chat_run_calls`
        yield* sql`DROP TABLE chat_run_calls`
        yield* sql`DROP TABLE chat_runs`
        yield* sql`ALTER TABLE chat_runs_next RENAME TO chat_runs`
        yield* sql`ALTER TABLE chat_run_calls_next RENAME TO chat_run_calls`
        yield* sql`CREATE INDEX chat_runs_suspended ON chat_runs (thread_id) WHERE status = 'suspended'`
        yield* sql`CREATE TRIGGER threads_runs_deleted AFTER DELETE ON threads
                   BEGIN DELETE FROM chat_runs WHERE thread_id = OLD.id; END`
      }),
  })
})

/**
 * The tables of `SqlChatRuns`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 * Requires threads: until migration 11 runs reference `threads`, and a trigger on it deletes
 * them with their thread.
 */
export const schema: Schema = {
  name: "aide.chat_runs",
  requires: [threads],
  migrations: [
    { id: 6, name: "chat_runs", up: chatRunTables, legacyId: 6 },
    { id: 11, name: "chat_runs_own_store", up: chatRunsOwnStore, legacyId: 11 },
  ],
}

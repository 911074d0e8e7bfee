import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../../storage/SqlMigrations.js"
import { schema as threads } from "../../threads/threadsSchema.js"

/**
 * Observational memory (migration 0013). `memory_records`: one row per scope key, with the
 * counters of SPEC "Memory record", the claim (lease) of the observer or reflector running, and
 * the circuit breaker. `memory_messages`: the ledger of counted messages (tokens; the chunk that
 * observed it, null while pending). `memory_chunks`: observations of one observer call, with
 * the messages they came from; `reflected_in` is the reflection that absorbed them.
 * `memory_reflections`: every generation, kept for audit. `memory_usage`: tokens per day.
 * Deleting a thread (and, by cascade, its branches) drops its ledger rows by trigger.
 */
export const observationalMemoryTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE memory_records (
    key TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    scope TEXT NOT NULL,
    observation_tokens INTEGER NOT NULL DEFAULT 0,
    generation_count INTEGER NOT NULL DEFAULT 0,
    total_tokens_observed INTEGER NOT NULL DEFAULT 0,
    last_observed_at TEXT,
    updated_at TEXT NOT NULL,
    claim_kind TEXT,
    claim_token TEXT,
    claim_until TEXT,
    failures INTEGER NOT NULL DEFAULT 0,
    paused_until TEXT
  )`
  yield* sql`CREATE TABLE memory_messages (
    record_key TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    chunk_id TEXT,
    PRIMARY KEY (record_key, thread_id, message_id)
  )`
  yield* sql`CREATE INDEX memory_messages_pending ON memory_messages (record_key, created_at) WHERE chunk_id IS NULL`
  yield* sql`CREATE INDEX memory_messages_message ON memory_messages (record_key, message_id)`
  yield* sql`CREATE INDEX memory_messages_chunk ON memory_messages (chunk_id)`
  yield* sql`CREATE INDEX memory_messages_thread ON memory_messages (thread_id)`
  yield* sql`CREATE TABLE memory_chunks (
    id TEXT PRIMARY KEY,
    record_key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    thread_id TEXT NOT NULL,
    message_ids TEXT NOT NULL,
    content TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    reflected_in INTEGER
  )`
  yield* sql`CREATE UNIQUE INDEX memory_chunks_record_seq ON memory_chunks (record_key, seq)`
  yield* sql`CREATE TABLE memory_reflections (
    record_key TEXT NOT NULL,
    generation INTEGER NOT NULL,
    content TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (record_key, generation)
  )`
  yield* sql`CREATE TABLE memory_usage (day TEXT PRIMARY KEY, tokens INTEGER NOT NULL)`
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql.unsafe(`CREATE FUNCTION memory_thread_deleted() RETURNS trigger LANGUAGE plpgsql AS $body$
          BEGIN
            DELETE FROM memory_messages WHERE thread_id = OLD.id;
            RETURN NULL;
          END
        $body$`)
        yield* sql`CREATE TRIGGER threads_memory_deleted AFTER DELETE ON threads
                   FOR EACH ROW EXECUTE FUNCTION memory_thread_deleted()`
      }),
    orElse: () =>
      sql`CREATE TRIGGER threads_memory_deleted AFTER DELETE ON threads
          BEGIN DELETE FROM memory_messages WHERE thread_id = OLD.id; END`,
  })
})

/**
 * Migration 0020: what a chat turn's memory reads must not grow with a year of observed messages.
 * `pendingTokens` (after every turn) groups the pending ledger rows by message id: without this
 * index SQLite walked `memory_messages_message`, every counted row of the record, to find the few
 * pending ones (1,000,000 after a year). `activeLog` (every turn's prompt) read every chunk ever
 * committed to skip the reflected ones; the partial index holds the active log only.
 */
export const pendingIndexes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX memory_messages_pending_message ON memory_messages (record_key, message_id)
             WHERE chunk_id IS NULL`
  yield* sql`CREATE INDEX memory_chunks_active ON memory_chunks (record_key, seq) WHERE reflected_in IS NULL`
})

/** The tables of `SqlObservationStore`; requires threads (its triggers delete a thread's ledger rows). */
export const schema: Schema = {
  name: "aide.observations",
  requires: [threads],
  migrations: [
    { id: 13, name: "observational_memory", up: observationalMemoryTables, legacyId: 13 },
    { id: 20, name: "memory_pending_indexes", up: pendingIndexes },
  ],
}

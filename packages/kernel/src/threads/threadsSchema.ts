import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * Threads and their messages. A branch keeps its root in `root_id`; the root row carries
 * `family_updated_at` (the latest `updated_at` of its family, NULL on branches) so listing
 * families is one ordered scan of a partial index, whatever the number of branches.
 * Messages keep their ids in forked copies, hence the composite key; `seq` orders them.
 */
const threadTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    root_id TEXT NOT NULL,
    parent_id TEXT REFERENCES threads (id) ON DELETE CASCADE,
    fork_message_id TEXT,
    fork_point_index INTEGER,
    title TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    family_updated_at TEXT
  )`
  yield* sql`CREATE INDEX threads_roots_by_activity ON threads (family_updated_at, id) WHERE parent_id IS NULL`
  yield* sql`CREATE INDEX threads_root_id ON threads (root_id)`
  // Partial: roots stay out of it, so the planner cannot pick it for the root listing.
  yield* sql`CREATE INDEX threads_parent_id ON threads (parent_id, fork_message_id) WHERE parent_id IS NOT NULL`
  yield* sql`CREATE TABLE messages (
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL,
    metadata TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (thread_id, id)
  )`
  yield* sql`CREATE UNIQUE INDEX messages_thread_seq ON messages (thread_id, seq)`
})

/**
 * The number of root threads, kept by triggers in the same transaction as the insert or delete:
 * `GET /api/threads` reports it on every page, and COUNT(*) over the roots grows with them
 * (~0.4 ms of SQLite per request at 10,000 roots, ~40% of the request).
 */
const threadRootCount = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE thread_root_count (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    roots INTEGER NOT NULL
  )`
  yield* sql`INSERT INTO thread_root_count (id, roots)
             SELECT 1, COUNT(*) FROM threads WHERE parent_id IS NULL`
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function* () {
        yield* sql.unsafe(`CREATE FUNCTION thread_root_count_change() RETURNS trigger LANGUAGE plpgsql AS $body$
          BEGIN
            UPDATE thread_root_count SET roots = roots + (CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END) WHERE id = 1;
            RETURN NULL;
          END
        $body$`)
        yield* sql`CREATE TRIGGER threads_root_inserted AFTER INSERT ON threads
                   FOR EACH ROW WHEN (NEW.parent_id IS NULL) EXECUTE FUNCTION thread_root_count_change()`
        yield* sql`CREATE TRIGGER threads_root_deleted AFTER DELETE ON threads
                   FOR EACH ROW WHEN (OLD.parent_id IS NULL) EXECUTE FUNCTION thread_root_count_change()`
      }),
    orElse: () =>
      Effect.gen(function* () {
        yield* sql`CREATE TRIGGER threads_root_inserted AFTER INSERT ON threads WHEN NEW.parent_id IS NULL
                   BEGIN UPDATE thread_root_count SET roots = roots + 1 WHERE id = 1; END`
        yield* sql`CREATE TRIGGER threads_root_deleted AFTER DELETE ON threads WHEN OLD.parent_id IS NULL
                   BEGIN UPDATE thread_root_count SET roots = roots - 1 WHERE id = 1; END`
      }),
  })
})

/**
 * The tables of `SqlThreads`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.threads",
  migrations: [
    { id: 3, name: "threads", up: threadTables, legacyId: 3 },
    { id: 5, name: "thread_root_count", up: threadRootCount, legacyId: 5 },
  ],
}

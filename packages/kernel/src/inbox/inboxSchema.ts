import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * Inbox messages. `seq` breaks ties of `created_at` (newest first). `is_read` is 0/1 in both
 * dialects. A pending channel delivery is claimed through `lease_owner`/`lease_until`;
 * `delivery_attempts` and `last_error` are kept for the logs and operators. `thread_id` has no
 * foreign key: deleting a thread leaves its messages in the inbox.
 */
const inboxTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE inbox_messages (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    thread_id TEXT,
    destination TEXT NOT NULL,
    status TEXT NOT NULL,
    is_read INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    archived_at TEXT,
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    lease_owner TEXT,
    lease_until TEXT
  )`
  yield* sql`CREATE INDEX inbox_messages_newest ON inbox_messages (created_at, seq)`
  yield* sql`CREATE INDEX inbox_messages_pending ON inbox_messages (lease_until) WHERE status = 'pending'`
})

/**
 * The tables of `SqlInboxStore`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.inbox",
  migrations: [{ id: 4, name: "inbox", up: inboxTable, legacyId: 4 }],
}

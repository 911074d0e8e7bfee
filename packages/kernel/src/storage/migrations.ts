import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect } from "effect"

/**
 * Schema migrations, written once for every dialect we support: plain TEXT timestamps
 * (ISO 8601, comparable as text) and no dialect-only types. A migration that needs a
 * dialect-specific statement uses `sql.onDialectOrElse`.
 */
const authTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE auth_owner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    ip TEXT NOT NULL,
    revoked_at TEXT
  )`
  yield* sql`CREATE TABLE auth_refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    rotated_at TEXT
  )`
  yield* sql`CREATE INDEX auth_refresh_tokens_session_id ON auth_refresh_tokens (session_id)`
})

export const loader = Migrator.fromRecord({
  "0001_auth": authTables,
})

/** Runs pending migrations; safe to call at every start (applied ones are recorded). */
export const run = Migrator.make({})({ loader, table: "aide_migrations" })

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/** The owner's password hash, sessions and refresh tokens (one owner: `auth_owner` has one row). */
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

/**
 * The owner's credential generation, bumped by every password change in the transaction that
 * revokes the sessions; a session is created only under the generation its password was
 * verified against (see docs/auth.md, "Password change and logins in flight").
 */
const credentialGeneration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE auth_owner ADD COLUMN credential_generation INTEGER NOT NULL DEFAULT 0`
})

/**
 * The tables of `SqlAuthStore`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.auth",
  migrations: [
    { id: 1, name: "auth", up: authTables, legacyId: 1 },
    { id: 10, name: "auth_credential_generation", up: credentialGeneration, legacyId: 10 },
  ],
}

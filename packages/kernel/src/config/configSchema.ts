import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/** The application config: one row, the owner's settings as a JSON document (defaults not included). */
const configTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE app_config (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    document TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
  // The row exists from the start, so a PATCH can always lock it (SELECT … FOR UPDATE).
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  yield* sql`INSERT INTO app_config (id, document, updated_at) VALUES (1, ${"{}"}, ${now})`
})

/**
 * Stored config documents the server could not use (unparseable, nested too deep, invalid),
 * set aside with the reason before anything overwrites them: see docs/operations.md.
 */
const configRejectedTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE config_rejected (
    document TEXT NOT NULL,
    reason TEXT NOT NULL,
    rejected_at TEXT NOT NULL
  )`
})

/**
 * The tables of `SqlConfigStore`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.config",
  migrations: [
    { id: 2, name: "config", up: configTable, legacyId: 2 },
    { id: 9, name: "config_rejected", up: configRejectedTable, legacyId: 9 },
  ],
}

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * Working memory: one markdown document per scope, versioned (writes are compare-and-set on
 * `version`), and the last versions of each for undoing a bad edit.
 */
const workingMemoryTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE working_memory (
    scope TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE working_memory_versions (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`
})

/**
 * The tables of `SqlMemoryStore`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.working_memory",
  migrations: [{ id: 12, name: "working_memory", up: workingMemoryTables, legacyId: 12 }],
}

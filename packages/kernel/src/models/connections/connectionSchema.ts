import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../../storage/SqlMigrations.js"

/**
 * `provider_connections`: the owner's provider connections, one row per provider id, the values
 * sealed (AES-256-GCM, `ConnectionCipher`): the table alone reveals which providers are
 * connected and when, not a key.
 */
const providerConnectionsTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE provider_connections (
    provider TEXT PRIMARY KEY,
    sealed TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`
})

/**
 * The table of `SqlConnectionStore`, numbered in the kernel's one sequence: 19, after the ids
 * taken on main (16) and by branches in flight (17 channel_access / mcp_sessions, 18 mcp_auth).
 */
export const schema: Schema = {
  name: "aide.provider_connections",
  migrations: [{ id: 19, name: "provider_connections", up: providerConnectionsTable }],
}

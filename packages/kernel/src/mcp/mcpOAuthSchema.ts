import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * OAuth with remote MCP servers. `mcp_oauth_clients`: per server id, the client registration
 * and tokens (JSON as the MCP SDK hands them over), bound to the server URL they were obtained
 * for. `mcp_oauth_states`: one row per authorization in flight, keyed by the single-use `state`
 * and holding that attempt's PKCE verifier.
 */
const mcpOAuthTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE mcp_oauth_clients (
    server_id TEXT PRIMARY KEY,
    server_url TEXT NOT NULL,
    client_information TEXT,
    tokens TEXT,
    updated_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE mcp_oauth_states (
    state TEXT PRIMARY KEY,
    server_id TEXT NOT NULL,
    server_url TEXT NOT NULL,
    code_verifier TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX mcp_oauth_states_server_id ON mcp_oauth_states (server_id)`
})

/**
 * The tables of `SqlMcpOAuthStore`, numbered in the kernel's one sequence (ids are release 0.1's
 * `aide_migrations` ids, so `max(migration_id)` stays the schema version `aide doctor` compares).
 */
export const schema: Schema = {
  name: "aide.mcp_oauth",
  migrations: [{ id: 8, name: "mcp_oauth", up: mcpOAuthTables, legacyId: 8 }],
}

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * The tables of `/mcp`'s OAuth authorization server (`SqlMcpGrantStore`): registered clients,
 * authorization codes, grants and tokens. Secrets are stored as SHA-256 hashes only; lists
 * (redirect URIs, tools) as JSON text; timestamps as ISO 8601 text.
 */
const mcpGrantTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE mcp_auth_clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE mcp_auth_codes (
    code_hash TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource TEXT NOT NULL,
    tools TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    grant_id TEXT
  )`
  yield* sql`CREATE TABLE mcp_auth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    tools TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
  )`
  yield* sql`CREATE INDEX mcp_auth_grants_client ON mcp_auth_grants (client_id)`
  yield* sql`CREATE TABLE mcp_auth_tokens (
    token_hash TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    rotated_at TEXT
  )`
  yield* sql`CREATE INDEX mcp_auth_tokens_grant ON mcp_auth_tokens (grant_id)`
})

/** Numbered in the kernel's one sequence: 17 is taken twice on branches (channel_access, mcp_sessions). */
export const schema: Schema = {
  name: "aide.mcp_auth",
  migrations: [{ id: 18, name: "mcp_auth", up: mcpGrantTables }],
}

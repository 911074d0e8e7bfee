import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/** `mcp_sessions`: the sessions of Aide's own MCP endpoint (`created_at` ISO 8601 text). */
const mcpSessionsTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE mcp_sessions (
    id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    initialize TEXT NOT NULL,
    subscriptions TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX mcp_sessions_created_at ON mcp_sessions (created_at)`
})

/** The table of `SqlMcpSessionStore`, numbered in the kernel's one sequence. */
export const schema: Schema = {
  name: "aide.mcp_sessions",
  migrations: [{ id: 17, name: "mcp_sessions", up: mcpSessionsTable }],
}

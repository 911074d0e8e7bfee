import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import { orStorageError } from "../storage/StorageError.js"
import { McpOAuthStore, type PendingAuthorization } from "./McpOAuthStore.js"
import { schema } from "./mcpOAuthSchema.js"

interface PendingRow {
  readonly serverId: string
  readonly serverUrl: string
  readonly codeVerifier: string | null
  readonly expiresAt: string
}

const parse = (text: string | null | undefined): unknown => (text == null ? undefined : JSON.parse(text))

/** `McpOAuthStore` over any `SqlClient` dialect (SQLite, PostgreSQL). */
export const make: Effect.Effect<McpOAuthStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

  const column = (name: "client_information" | "tokens") => (serverId: string, serverUrl: string) =>
    sql<{ readonly value: string | null }>`SELECT ${sql(name)} AS value FROM mcp_oauth_clients
      WHERE server_id = ${serverId} AND server_url = ${serverUrl}`.pipe(
      Effect.map((rows) => parse(rows[0]?.value)),
      orStorageError(`read MCP OAuth ${name}`),
    )

  // Saving for another URL than the stored one drops the other column: it belonged to the old URL.
  const save =
    (name: "client_information" | "tokens", other: "client_information" | "tokens") =>
    (serverId: string, serverUrl: string, value: unknown) =>
      Effect.flatMap(
        now,
        (updatedAt) => sql`INSERT INTO mcp_oauth_clients (server_id, server_url, ${sql(name)}, updated_at)
          VALUES (${serverId}, ${serverUrl}, ${JSON.stringify(value)}, ${updatedAt})
          ON CONFLICT (server_id) DO UPDATE SET
            ${sql(name)} = excluded.${sql(name)},
            ${sql(other)} = CASE WHEN mcp_oauth_clients.server_url = excluded.server_url
              THEN mcp_oauth_clients.${sql(other)} ELSE NULL END,
            server_url = excluded.server_url,
            updated_at = excluded.updated_at`,
      ).pipe(Effect.asVoid, orStorageError(`save MCP OAuth ${name}`))

  const clear = (serverId: string, what: "all" | "client" | "tokens") =>
    (what === "all"
      ? sql`DELETE FROM mcp_oauth_clients WHERE server_id = ${serverId}`
      : what === "client"
        ? sql`UPDATE mcp_oauth_clients SET client_information = NULL WHERE server_id = ${serverId}`
        : sql`UPDATE mcp_oauth_clients SET tokens = NULL WHERE server_id = ${serverId}`
    ).pipe(Effect.asVoid, orStorageError("clear MCP OAuth credentials"))

  const addPending = (state: string, pending: PendingAuthorization) =>
    Effect.gen(function* () {
      const createdAt = yield* now
      yield* sql`DELETE FROM mcp_oauth_states WHERE expires_at <= ${createdAt}`
      yield* sql`INSERT INTO mcp_oauth_states (state, server_id, server_url, code_verifier, created_at, expires_at)
        VALUES (${state}, ${pending.serverId}, ${pending.serverUrl}, ${pending.codeVerifier}, ${createdAt},
          ${pending.expiresAt.toISOString()})`
    }).pipe(orStorageError("save MCP OAuth state"))

  const takePending = (state: string) =>
    sql<PendingRow>`DELETE FROM mcp_oauth_states WHERE state = ${state}
      RETURNING server_id AS "serverId", server_url AS "serverUrl", code_verifier AS "codeVerifier",
        expires_at AS "expiresAt"`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullable(rows[0]), (row) => ({ ...row, expiresAt: new Date(row.expiresAt) })),
      ),
      orStorageError("take MCP OAuth state"),
    )

  const dropPending = (serverId: string) =>
    sql`DELETE FROM mcp_oauth_states WHERE server_id = ${serverId}`.pipe(
      Effect.asVoid,
      orStorageError("drop MCP OAuth states"),
    )

  return {
    clientInformation: column("client_information"),
    saveClientInformation: save("client_information", "tokens"),
    tokens: column("tokens"),
    saveTokens: save("tokens", "client_information"),
    clear,
    addPending,
    takePending,
    dropPending,
  }
})

/** `McpOAuthStore` on the kernel's `SqlClient` (tables of migration `0008_mcp_oauth`). */
export const layer: Layer.Layer<McpOAuthStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  McpOAuthStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import { McpSessionStore } from "./McpSessionStore.js"
import { schema } from "./mcpSessionSchema.js"

interface Row {
  readonly id: string
  readonly principal: string
  readonly initialize: string
  readonly subscriptions: string
  readonly created_at: string
}

const subscriptionsOf = (text: string): ReadonlyArray<string> => {
  const value: unknown = JSON.parse(text)
  return Array.isArray(value) ? value.filter((uri): uri is string => typeof uri === "string") : []
}

/** `McpSessionStore` over any `SqlClient` dialect (table `mcp_sessions`), shared by the replicas of one database. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return McpSessionStore.of({
    // `DO NOTHING`: a session id is a fresh UUID; were it ever reused, the first session stays its owner's.
    create: (record) =>
      sql`INSERT INTO mcp_sessions (id, principal, initialize, subscriptions, created_at)
        VALUES (${record.id}, ${record.principal}, ${record.initialize},
          ${JSON.stringify(record.subscriptions)}, ${record.createdAt.toISOString()})
        ON CONFLICT (id) DO NOTHING`.pipe(Effect.asVoid, orStorageError("storing an MCP session")),
    get: (id) =>
      sql<Row>`SELECT * FROM mcp_sessions WHERE id = ${id}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            id: row.id,
            principal: row.principal,
            initialize: row.initialize,
            subscriptions: subscriptionsOf(row.subscriptions),
            createdAt: new Date(row.created_at),
          })),
        ),
        orStorageError("reading an MCP session"),
      ),
    setSubscriptions: (id, uris) =>
      sql`UPDATE mcp_sessions SET subscriptions = ${JSON.stringify(uris)} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orStorageError("storing MCP subscriptions"),
      ),
    delete: (id) =>
      sql`DELETE FROM mcp_sessions WHERE id = ${id}`.pipe(Effect.asVoid, orStorageError("deleting an MCP session")),
    deleteBefore: (date) =>
      sql`DELETE FROM mcp_sessions WHERE created_at < ${date.toISOString()}`.pipe(
        Effect.asVoid,
        orStorageError("deleting old MCP sessions"),
      ),
  })
})

/** `McpSessionStore` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<McpSessionStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  McpSessionStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

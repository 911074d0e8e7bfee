import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import {
  type McpClientRow,
  type McpCodeState,
  type McpGrantRow,
  McpGrantStore,
  type McpGrantView,
  type McpTokenRow,
  type McpTokenState,
} from "./McpGrantStore.js"
import { schema } from "./mcpGrantSchema.js"

const list = (text: string): ReadonlyArray<string> => {
  const value: unknown = JSON.parse(text)
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
}

interface GrantSql {
  readonly id: string
  readonly clientId: string
  readonly tools: string
  readonly resource: string
  readonly createdAt: string
  readonly expiresAt: string
}

const grantOf = (row: GrantSql): McpGrantRow => ({
  id: row.id,
  clientId: row.clientId,
  tools: list(row.tools),
  resource: row.resource,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
})

const viewOf = (row: GrantSql & { readonly clientName: string | null; readonly redirectUris: string | null }) => ({
  ...grantOf(row),
  clientName: row.clientName ?? "",
  redirectUris: row.redirectUris === null ? [] : list(row.redirectUris),
})

/** `McpGrantStore` over any `SqlClient` dialect, shared by the replicas of one database. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const grantColumns = sql`g.id AS "id", g.client_id AS "clientId", g.tools AS "tools", g.resource AS "resource",
    g.created_at AS "createdAt", g.expires_at AS "expiresAt"`
  const viewColumns = sql`${grantColumns}, c.name AS "clientName", c.redirect_uris AS "redirectUris"`

  const insertTokens = (tokens: ReadonlyArray<McpTokenRow>, now: string) =>
    Effect.forEach(
      tokens,
      (token) => sql`INSERT INTO mcp_auth_tokens (token_hash, grant_id, kind, created_at, expires_at)
        VALUES (${token.hash}, ${token.grantId}, ${token.kind}, ${now}, ${token.expiresAt})`,
      { discard: true },
    )

  return McpGrantStore.of({
    createClient: (client) =>
      sql`INSERT INTO mcp_auth_clients (id, name, redirect_uris, created_at)
        VALUES (${client.id}, ${client.name}, ${JSON.stringify(client.redirectUris)}, ${client.createdAt})`.pipe(
        Effect.asVoid,
        orStorageError("registering an MCP client"),
      ),
    getClient: (id) =>
      sql<{ id: string; name: string; redirectUris: string; createdAt: string }>`
        SELECT id AS "id", name AS "name", redirect_uris AS "redirectUris", created_at AS "createdAt"
        FROM mcp_auth_clients WHERE id = ${id}`.pipe(
        Effect.map((rows) =>
          Option.map(
            Option.fromNullable(rows[0]),
            (row): McpClientRow => ({ ...row, redirectUris: list(row.redirectUris) }),
          ),
        ),
        orStorageError("reading an MCP client"),
      ),
    countClients: sql<{ n: number }>`SELECT COUNT(*) AS n FROM mcp_auth_clients`.pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? 0)),
      orStorageError("counting MCP clients"),
    ),
    purgeUnusedClients: (before) =>
      sql<{ id: string }>`DELETE FROM mcp_auth_clients WHERE created_at < ${before}
        AND id NOT IN (SELECT client_id FROM mcp_auth_grants) RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        orStorageError("purging MCP clients"),
      ),
    createCode: (code) =>
      sql`INSERT INTO mcp_auth_codes
        (code_hash, client_id, redirect_uri, code_challenge, resource, tools, created_at, expires_at)
        VALUES (${code.hash}, ${code.clientId}, ${code.redirectUri}, ${code.codeChallenge}, ${code.resource},
          ${JSON.stringify(code.tools)}, ${code.createdAt}, ${code.expiresAt})`.pipe(
        Effect.asVoid,
        orStorageError("storing an authorization code"),
      ),
    redeemCode: ({ hash, now, grant, tokens }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The WHERE clause decides: of two concurrent redemptions exactly one updates the row.
            const used = yield* sql<{ hash: string }>`UPDATE mcp_auth_codes SET used_at = ${now}, grant_id = ${grant.id}
              WHERE code_hash = ${hash} AND used_at IS NULL AND expires_at > ${now} RETURNING code_hash AS "hash"`
            if (used.length === 0) return Option.none()
            yield* sql`INSERT INTO mcp_auth_grants (id, client_id, tools, resource, created_at, expires_at)
              VALUES (${grant.id}, ${grant.clientId}, ${JSON.stringify(grant.tools)}, ${grant.resource},
                ${grant.createdAt}, ${grant.expiresAt})`
            yield* insertTokens(tokens, now)
            const code = yield* findCode(hash)
            return Option.map(code, ({ usedAt: _used, grantId: _grant, ...row }) => row)
          }),
        )
        .pipe(orStorageError("redeeming an authorization code")),
    findCode: (hash) => findCode(hash).pipe(orStorageError("reading an authorization code")),
    rotateRefreshToken: ({ hash, now, expiresAt, tokens }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const rotated = yield* sql<{ grantId: string }>`
              UPDATE mcp_auth_tokens SET rotated_at = ${now}
              WHERE token_hash = ${hash} AND kind = 'refresh' AND rotated_at IS NULL AND expires_at > ${now}
                AND grant_id IN (SELECT id FROM mcp_auth_grants WHERE revoked_at IS NULL)
              RETURNING grant_id AS "grantId"`
            const grantId = rotated[0]?.grantId
            if (grantId === undefined) return Option.none<McpGrantRow>()
            yield* insertTokens(tokens, now)
            yield* sql`UPDATE mcp_auth_grants SET expires_at = ${expiresAt} WHERE id = ${grantId}`
            const rows = yield* sql<GrantSql>`SELECT ${grantColumns} FROM mcp_auth_grants g WHERE g.id = ${grantId}`
            return Option.map(Option.fromNullable(rows[0]), grantOf)
          }),
        )
        .pipe(orStorageError("rotating an MCP refresh token")),
    findToken: (hash) =>
      sql<McpTokenState>`SELECT token_hash AS "hash", grant_id AS "grantId", kind AS "kind",
          expires_at AS "expiresAt", rotated_at AS "rotatedAt"
        FROM mcp_auth_tokens WHERE token_hash = ${hash}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        orStorageError("reading an MCP token"),
      ),
    authenticate: (accessHash, now) =>
      sql<GrantSql & { clientName: string | null; redirectUris: string | null }>`
        SELECT ${viewColumns} FROM mcp_auth_tokens t
        JOIN mcp_auth_grants g ON g.id = t.grant_id
        LEFT JOIN mcp_auth_clients c ON c.id = g.client_id
        WHERE t.token_hash = ${accessHash} AND t.kind = 'access' AND t.expires_at > ${now}
          AND g.revoked_at IS NULL AND g.expires_at > ${now}`.pipe(
        Effect.map((rows): Option.Option<McpGrantView> => Option.map(Option.fromNullable(rows[0]), viewOf)),
        orStorageError("checking an MCP access token"),
      ),
    listGrants: (now) =>
      sql<GrantSql & { clientName: string | null; redirectUris: string | null }>`
        SELECT ${viewColumns} FROM mcp_auth_grants g LEFT JOIN mcp_auth_clients c ON c.id = g.client_id
        WHERE g.revoked_at IS NULL AND g.expires_at > ${now}
        ORDER BY g.created_at DESC, g.id DESC`.pipe(
        Effect.map((rows) => rows.map(viewOf)),
        orStorageError("listing MCP grants"),
      ),
    revokeGrant: (id, now) =>
      sql<{ id: string }>`UPDATE mcp_auth_grants SET revoked_at = ${now}
        WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${now} RETURNING id AS "id"`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("revoking an MCP grant"),
      ),
    purge: (before) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`DELETE FROM mcp_auth_codes WHERE expires_at < ${before}`
            yield* sql`DELETE FROM mcp_auth_grants
              WHERE expires_at < ${before} OR (revoked_at IS NOT NULL AND revoked_at < ${before})`
            yield* sql`DELETE FROM mcp_auth_tokens
              WHERE expires_at < ${before} OR grant_id NOT IN (SELECT id FROM mcp_auth_grants)`
          }),
        )
        .pipe(orStorageError("purging MCP grants")),
  })

  function findCode(hash: string) {
    return sql<McpCodeState & { tools: string }>`
      SELECT code_hash AS "hash", client_id AS "clientId", redirect_uri AS "redirectUri",
        code_challenge AS "codeChallenge", resource AS "resource", tools AS "tools", created_at AS "createdAt",
        expires_at AS "expiresAt", used_at AS "usedAt", grant_id AS "grantId"
      FROM mcp_auth_codes WHERE code_hash = ${hash}`.pipe(
      Effect.map((rows) =>
        Option.map(Option.fromNullable(rows[0]), (row): McpCodeState => ({ ...row, tools: list(row.tools) })),
      ),
    )
  }
})

/** `McpGrantStore` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<McpGrantStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  McpGrantStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

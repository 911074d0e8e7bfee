import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import { orStorageError } from "../storage/StorageError.js"
import { AuthStore, type Credentials, type RefreshTokenRow, type SessionRow } from "./AuthStore.js"
import { schema } from "./authSchema.js"

const sessionColumns = (sql: SqlClient.SqlClient) =>
  sql`id, created_at AS "createdAt", expires_at AS "expiresAt", user_agent AS "userAgent", ip`

/** `AuthStore` over any `SqlClient` dialect (SQLite, PostgreSQL): one implementation, one test suite. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const credentials = sql<Credentials>`
    SELECT password_hash AS "hash", credential_generation AS "generation" FROM auth_owner WHERE id = 1`.pipe(
    Effect.map((rows) => Option.fromNullable(rows[0])),
    orStorageError("reading the password hash"),
  )

  const createOwner = (hash: string, now: string) =>
    sql`INSERT INTO auth_owner (id, password_hash, created_at, updated_at)
        VALUES (1, ${hash}, ${now}, ${now})
        ON CONFLICT (id) DO NOTHING
        RETURNING id`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStorageError("storing the password"),
    )

  const revokeAll = (now: string) =>
    sql<{
      readonly id: string
    }>`UPDATE auth_sessions SET revoked_at = ${now} WHERE revoked_at IS NULL RETURNING id`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
    )

  const insertSession = (session: SessionRow, refreshTokenHash: string) =>
    Effect.zipRight(
      sql`INSERT INTO auth_sessions (id, created_at, expires_at, user_agent, ip)
          VALUES (${session.id}, ${session.createdAt}, ${session.expiresAt}, ${session.userAgent}, ${session.ip})`,
      sql`INSERT INTO auth_refresh_tokens (token_hash, session_id, created_at, expires_at)
          VALUES (${refreshTokenHash}, ${session.id}, ${session.createdAt}, ${session.expiresAt})`,
    )

  // This one statement decides a race with a password change. It writes (without changing) the
  // owner row, so it holds that row's lock until the session is committed: PostgreSQL makes a
  // concurrent change wait for it (whose revocation then sees and ends this session), or makes
  // it wait for the change and re-checks the generation on the changed row (no match: nothing
  // is inserted); SQLite has one writer at a time. A plain INSERT ... SELECT would not do on
  // PostgreSQL: under READ COMMITTED its SELECT does not wait for an uncommitted change, so the
  // session could be committed after the revocation scanned for sessions.
  const claimGeneration = (generation: number) =>
    sql`UPDATE auth_owner SET credential_generation = credential_generation
        WHERE id = 1 AND credential_generation = ${generation}
        RETURNING id`.pipe(Effect.map((rows) => rows.length === 1))

  const replacePassword = (input: {
    readonly hash: string
    readonly now: string
    readonly generation: number
    readonly session: SessionRow
    readonly refreshTokenHash: string
  }) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          // Of two changes verified against the same password, the WHERE lets only one through.
          const changed = yield* sql`UPDATE auth_owner
            SET password_hash = ${input.hash}, credential_generation = credential_generation + 1,
                updated_at = ${input.now}
            WHERE id = 1 AND credential_generation = ${input.generation}
            RETURNING id`
          if (changed.length === 0) return Option.none<ReadonlyArray<string>>()
          const revoked = yield* revokeAll(input.now)
          yield* insertSession(input.session, input.refreshTokenHash)
          return Option.some(revoked)
        }),
      )
      .pipe(orStorageError("replacing the password"))

  const createSession = (session: SessionRow, refreshTokenHash: string, generation: number) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          if (!(yield* claimGeneration(generation))) return false
          yield* insertSession(session, refreshTokenHash)
          return true
        }),
      )
      .pipe(orStorageError("creating a session"))

  const rotateRefreshToken = (input: {
    readonly hash: string
    readonly nextHash: string
    readonly now: string
    readonly expiresAt: string
  }) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          // The WHERE clause is the whole decision: of two concurrent rotations of one token,
          // the database lets exactly one update the row.
          const rotated = yield* sql<{ readonly sessionId: string }>`
            UPDATE auth_refresh_tokens SET rotated_at = ${input.now}
            WHERE token_hash = ${input.hash}
              AND rotated_at IS NULL
              AND expires_at > ${input.now}
              AND session_id IN (SELECT id FROM auth_sessions WHERE revoked_at IS NULL)
            RETURNING session_id AS "sessionId"`
          const sessionId = rotated[0]?.sessionId
          if (sessionId === undefined) return Option.none<string>()
          yield* sql`INSERT INTO auth_refresh_tokens (token_hash, session_id, created_at, expires_at)
                     VALUES (${input.nextHash}, ${sessionId}, ${input.now}, ${input.expiresAt})`
          yield* sql`UPDATE auth_sessions SET expires_at = ${input.expiresAt} WHERE id = ${sessionId}`
          return Option.some(sessionId)
        }),
      )
      .pipe(orStorageError("rotating a refresh token"))

  const findRefreshToken = (hash: string) =>
    sql<RefreshTokenRow>`
      SELECT session_id AS "sessionId", expires_at AS "expiresAt", rotated_at AS "rotatedAt"
      FROM auth_refresh_tokens WHERE token_hash = ${hash}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0])),
      orStorageError("reading a refresh token"),
    )

  const isSessionActive = (id: string, now: string) =>
    sql`SELECT 1 AS "active" FROM auth_sessions WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${now}`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStorageError("reading a session"),
    )

  const columns = sessionColumns(sql)
  const listActiveSessions = (now: string) =>
    sql<SessionRow>`SELECT ${columns} FROM auth_sessions
                    WHERE revoked_at IS NULL AND expires_at > ${now}
                    ORDER BY created_at DESC, id`.pipe(orStorageError("listing sessions"))

  const revokeSession = (id: string, now: string) =>
    sql`UPDATE auth_sessions SET revoked_at = ${now}
        WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING id`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStorageError("revoking a session"),
    )

  // Only active sessions: an expired one is already over and must not count as revoked.
  const revokeAllSessions = (now: string) =>
    sql<{ readonly id: string }>`UPDATE auth_sessions SET revoked_at = ${now}
        WHERE revoked_at IS NULL AND expires_at > ${now}
        RETURNING id`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
      orStorageError("revoking all sessions"),
    )

  const purgeSessions = (before: string) =>
    sql<{ readonly id: string }>`DELETE FROM auth_sessions
        WHERE expires_at < ${before} OR (revoked_at IS NOT NULL AND revoked_at < ${before})
        RETURNING id`.pipe(
      Effect.map((rows) => rows.length),
      orStorageError("purging old sessions"),
    )

  return AuthStore.of({
    credentials,
    createOwner,
    replacePassword,
    createSession,
    rotateRefreshToken,
    findRefreshToken,
    isSessionActive,
    listActiveSessions,
    revokeSession,
    revokeAllSessions,
    purgeSessions,
  })
})

export const layer: Layer.Layer<AuthStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  AuthStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

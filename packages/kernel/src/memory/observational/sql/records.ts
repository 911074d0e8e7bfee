import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { orStorageError } from "../../../storage/StorageError.js"
import type { ClaimKind, RecordKey, RecordRow } from "../ObservationStore.js"

/** Records, claims, the breaker and the daily usage of `SqlObservationStore`. */

interface Row {
  readonly key: string
  readonly id: string
  readonly scope: string
  readonly observationTokens: number | string
  readonly generationCount: number | string
  readonly totalTokensObserved: number | string
  readonly lastObservedAt: string | null
  readonly updatedAt: string
  readonly claimKind: string | null
  readonly claimToken: string | null
  readonly claimUntil: string | null
  readonly failures: number | string
  readonly pausedUntil: string | null
}

const columns = `key, id, scope, observation_tokens AS "observationTokens", generation_count AS "generationCount",
  total_tokens_observed AS "totalTokensObserved", last_observed_at AS "lastObservedAt", updated_at AS "updatedAt",
  claim_kind AS "claimKind", claim_token AS "claimToken", claim_until AS "claimUntil", failures,
  paused_until AS "pausedUntil"`

const toRecord = (row: Row): RecordRow => ({
  key: row.key,
  id: row.id,
  scope: row.scope === "thread" ? "thread" : "resource",
  observationTokenCount: Number(row.observationTokens),
  generationCount: Number(row.generationCount),
  totalTokensObserved: Number(row.totalTokensObserved),
  lastObservedAt: row.lastObservedAt === null ? null : new Date(row.lastObservedAt),
  updatedAt: new Date(row.updatedAt),
  claim:
    row.claimKind === null || row.claimToken === null || row.claimUntil === null
      ? null
      : { kind: row.claimKind as ClaimKind, token: row.claimToken, until: new Date(row.claimUntil) },
  failures: Number(row.failures),
  pausedUntil: row.pausedUntil === null ? null : new Date(row.pausedUntil),
})

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const record = (key: RecordKey) =>
    sql<Row>`SELECT ${sql.literal(columns)} FROM memory_records WHERE key = ${key}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)),
      orStorageError("reading a memory record"),
    )

  // Read first: after a record's first turn (every turn, in the default resource scope) the
  // insert would be a write that changes nothing.
  const ensureRecord = (key: RecordKey, scope: "resource" | "thread", id: string, now: Date) =>
    Effect.flatMap(
      record(key),
      Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          sql`INSERT INTO memory_records (key, id, scope, updated_at)
              VALUES (${key}, ${id}, ${scope}, ${now.toISOString()}) ON CONFLICT (key) DO NOTHING`.pipe(
            Effect.zipRight(record(key)),
            Effect.map(Option.getOrThrow),
          ),
      }),
    ).pipe(orStorageError("creating a memory record"))

  const latestThreadRecord = sql<Row>`
    SELECT ${sql.literal(columns)} FROM memory_records WHERE scope = 'thread' ORDER BY updated_at DESC LIMIT 1`.pipe(
    Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)),
    orStorageError("reading memory records"),
  )

  const claim = (key: RecordKey, kind: ClaimKind, token: string, now: Date, until: Date) =>
    sql<{ key: string }>`
      UPDATE memory_records SET claim_kind = ${kind}, claim_token = ${token}, claim_until = ${until.toISOString()}
      WHERE key = ${key}
        AND (claim_token IS NULL OR claim_until < ${now.toISOString()})
        AND (paused_until IS NULL OR paused_until <= ${now.toISOString()})
      RETURNING key`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStorageError("claiming a memory record"),
    )

  const renew = (key: RecordKey, token: string, until: Date) =>
    sql<{ key: string }>`
      UPDATE memory_records SET claim_until = ${until.toISOString()} WHERE key = ${key} AND claim_token = ${token}
      RETURNING key`.pipe(
      Effect.map((rows) => rows.length === 1),
      orStorageError("renewing a memory claim"),
    )

  const release = (
    key: RecordKey,
    token: string,
    outcome: { readonly failed: boolean; readonly pauseAfter: number; readonly pauseUntil: Date },
  ) =>
    (outcome.failed
      ? sql`UPDATE memory_records SET claim_kind = NULL, claim_token = NULL, claim_until = NULL,
              failures = failures + 1,
              paused_until = CASE WHEN failures + 1 >= ${outcome.pauseAfter}
                                  THEN ${outcome.pauseUntil.toISOString()} ELSE paused_until END
            WHERE key = ${key} AND claim_token = ${token}`
      : sql`UPDATE memory_records SET claim_kind = NULL, claim_token = NULL, claim_until = NULL
            WHERE key = ${key} AND claim_token = ${token}`
    ).pipe(Effect.asVoid, orStorageError("releasing a memory claim"))

  const releaseAllClaims = sql`
    UPDATE memory_records SET claim_kind = NULL, claim_token = NULL, claim_until = NULL
    WHERE claim_token IS NOT NULL`.pipe(Effect.asVoid, orStorageError("releasing memory claims"))

  const usage = (day: string) =>
    sql<{ tokens: number | string }>`SELECT tokens FROM memory_usage WHERE day = ${day}`.pipe(
      Effect.map((rows) => Number(rows[0]?.tokens ?? 0)),
      orStorageError("reading memory usage"),
    )

  const addUsage = (day: string, tokens: number) =>
    sql`INSERT INTO memory_usage (day, tokens) VALUES (${day}, ${tokens})
        ON CONFLICT (day) DO UPDATE SET tokens = memory_usage.tokens + excluded.tokens`.pipe(
      Effect.asVoid,
      orStorageError("recording memory usage"),
    )

  return { record, ensureRecord, latestThreadRecord, claim, renew, release, releaseAllClaims, usage, addUsage }
})

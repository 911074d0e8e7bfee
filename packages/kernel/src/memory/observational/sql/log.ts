import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option } from "effect"
import { orStorageError } from "../../../storage/StorageError.js"
import type { ActiveLog, Chunk, LedgerEntry, RecordKey } from "../ObservationStore.js"

/** The ledger of counted messages, the observation chunks and the reflections of `SqlObservationStore`. */

interface ChunkRow {
  readonly id: string
  readonly threadId: string
  readonly messageIds: string
  readonly content: string
  readonly tokens: number | string
  readonly createdAt: string
}

/** The chunk columns of a record without an active chunk (the LEFT JOIN's nulls). */
interface NoChunk {
  readonly id: null
}

const toChunk = (row: ChunkRow): Chunk => ({
  id: row.id,
  threadId: row.threadId,
  messageIds: JSON.parse(row.messageIds) as Array<string>,
  content: row.content,
  tokens: Number(row.tokens),
  createdAt: new Date(row.createdAt),
})

/** Ledger rows per INSERT (8 bound parameters each). */
const ingestBatch = 100

/** Most pending rows read at once: one observer call never needs more. */
const pendingScanLimit = 2_000

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Locks the record row for this transaction; false when `token` no longer holds the claim. */
  const lockClaimed = (key: RecordKey, token: string) =>
    Effect.map(
      sql<{ key: string }>`UPDATE memory_records SET claim_token = claim_token
                           WHERE key = ${key} AND claim_token = ${token} RETURNING key`,
      (rows) => rows.length === 1,
    )

  /** One row's values: a fork's copy of a message already observed is observed too (the same message). */
  const ledgerRow = (key: RecordKey, entry: LedgerEntry) =>
    sql`(${key}, ${entry.threadId}, ${entry.messageId}, ${entry.tokens}, ${entry.createdAt.toISOString()},
      (SELECT chunk_id FROM memory_messages
       WHERE record_key = ${key} AND message_id = ${entry.messageId} AND chunk_id IS NOT NULL LIMIT 1))`

  const insertLedger = (key: RecordKey, entries: ReadonlyArray<LedgerEntry>) =>
    Effect.map(
      sql<{ messageId: string }>`
        INSERT INTO memory_messages (record_key, thread_id, message_id, tokens, created_at, chunk_id)
        VALUES ${sql.join(",", false)(entries.map((entry) => ledgerRow(key, entry)))}
        ON CONFLICT (record_key, thread_id, message_id) DO NOTHING
        RETURNING message_id AS "messageId"`,
      (rows) => rows.length,
    )

  // A turn's messages (usually two) in one statement, atomic by itself; more in bounded batches
  // (SQLite's and PostgreSQL's limits on bound parameters), in one transaction.
  const ingest = (key: RecordKey, entries: ReadonlyArray<LedgerEntry>) =>
    (entries.length === 0
      ? Effect.succeed(0)
      : entries.length <= ingestBatch
        ? insertLedger(key, entries)
        : sql.withTransaction(
            Effect.reduce(Arr.chunksOf(entries, ingestBatch), 0, (added, batch) =>
              Effect.map(insertLedger(key, batch), (rows) => added + rows),
            ),
          )
    ).pipe(orStorageError("counting messages into memory"))

  const idsWhere = (key: RecordKey, threadId: string, observedOnly: boolean) =>
    (observedOnly
      ? sql<{ messageId: string }>`SELECT message_id AS "messageId" FROM memory_messages
          WHERE record_key = ${key} AND thread_id = ${threadId} AND chunk_id IS NOT NULL`
      : sql<{ messageId: string }>`SELECT message_id AS "messageId" FROM memory_messages
          WHERE record_key = ${key} AND thread_id = ${threadId}`
    ).pipe(
      Effect.map((rows): ReadonlySet<string> => new Set(rows.map((row) => row.messageId))),
      orStorageError("reading memory's messages"),
    )

  const pendingTokens = (key: RecordKey) =>
    sql<{ tokens: number | string | null }>`
      SELECT COALESCE(SUM(tokens), 0) AS tokens FROM (
        SELECT MAX(tokens) AS tokens FROM memory_messages
        WHERE record_key = ${key} AND chunk_id IS NULL GROUP BY message_id) pending`.pipe(
      Effect.map((rows) => Number(rows[0]?.tokens ?? 0)),
      orStorageError("reading pending memory tokens"),
    )

  const pendingEntries = (key: RecordKey, maxTokens: number) =>
    sql<{ threadId: string; messageId: string; tokens: number | string; createdAt: string }>`
      SELECT thread_id AS "threadId", message_id AS "messageId", tokens, created_at AS "createdAt"
      FROM memory_messages WHERE record_key = ${key} AND chunk_id IS NULL
      ORDER BY created_at, thread_id, message_id LIMIT ${pendingScanLimit}`.pipe(
      Effect.map((rows) => {
        const seen = new Set<string>()
        const picked: Array<LedgerEntry> = []
        let total = 0
        for (const row of rows) {
          if (seen.has(row.messageId)) continue
          if (picked.length > 0 && total >= maxTokens) break
          seen.add(row.messageId)
          total += Number(row.tokens)
          picked.push({ ...row, tokens: Number(row.tokens), createdAt: new Date(row.createdAt) })
        }
        return picked
      }),
      orStorageError("reading pending memory messages"),
    )

  const commitObservation = (key: RecordKey, token: string, chunk: Chunk) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          if (!(yield* lockClaimed(key, token))) return Option.none<{ coveredTokens: number }>()
          const covered =
            chunk.messageIds.length === 0
              ? []
              : yield* sql<{ messageId: string; tokens: number | string }>`
                  UPDATE memory_messages SET chunk_id = ${chunk.id}
                  WHERE record_key = ${key} AND chunk_id IS NULL AND message_id IN ${sql.in(chunk.messageIds)}
                  RETURNING message_id AS "messageId", tokens`
          const perMessage = new Map<string, number>()
          for (const row of covered) perMessage.set(row.messageId, Number(row.tokens))
          const coveredTokens = [...perMessage.values()].reduce((sum, tokens) => sum + tokens, 0)
          const now = chunk.createdAt.toISOString()
          if (covered.length > 0) {
            const [next] = yield* sql<{ seq: number | string }>`
              SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM memory_chunks WHERE record_key = ${key}`
            yield* sql`INSERT INTO memory_chunks (id, record_key, seq, thread_id, message_ids, content, tokens, created_at)
                       VALUES (${chunk.id}, ${key}, ${Number(next?.seq ?? 1)}, ${chunk.threadId},
                               ${JSON.stringify([...perMessage.keys()])}, ${chunk.content}, ${chunk.tokens}, ${now})`
            yield* sql`UPDATE memory_records SET observation_tokens = observation_tokens + ${chunk.tokens},
                         total_tokens_observed = total_tokens_observed + ${coveredTokens},
                         last_observed_at = ${now}, updated_at = ${now}
                       WHERE key = ${key}`
          }
          yield* sql`UPDATE memory_records SET claim_kind = NULL, claim_token = NULL, claim_until = NULL, failures = 0
                     WHERE key = ${key}`
          return Option.some({ coveredTokens })
        }),
      )
      .pipe(orStorageError("committing an observation"))

  const activeLog = (key: RecordKey) =>
    Effect.gen(function* () {
      // The record's generation and its active chunks in one read: a row of nulls beside it when
      // there is no chunk, no row when there is no record (chunks are written under their
      // record's row, never deleted: no record, no observations).
      const rows = yield* sql<{ readonly generation: number | string } & (ChunkRow | NoChunk)>`
        SELECT r.generation_count AS generation, c.id, c.thread_id AS "threadId", c.message_ids AS "messageIds",
               c.content, c.tokens, c.created_at AS "createdAt"
        FROM memory_records r LEFT JOIN memory_chunks c ON c.record_key = r.key AND c.reflected_in IS NULL
        WHERE r.key = ${key} ORDER BY c.seq`
      const generation = Number(rows[0]?.generation ?? 0)
      const [reflection] =
        generation === 0
          ? []
          : yield* sql<{ content: string; tokens: number | string }>`
              SELECT content, tokens FROM memory_reflections WHERE record_key = ${key} AND generation = ${generation}`
      return {
        reflection:
          reflection === undefined
            ? null
            : { generation, content: reflection.content, tokens: Number(reflection.tokens) },
        chunks: rows
          .filter((row): row is ChunkRow & { readonly generation: number | string } => row.id !== null)
          .map(toChunk),
      } satisfies ActiveLog
    }).pipe(orStorageError("reading observations"))

  return { lockClaimed, ingest, idsWhere, pendingTokens, pendingEntries, commitObservation, activeLog }
})

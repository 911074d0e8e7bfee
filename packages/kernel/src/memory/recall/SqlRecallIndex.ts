import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as SqlMigrations from "../../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../../storage/StorageError.js"
import { schema } from "./internal/recallSchema.js"
import { selectiveTerms } from "./internal/termFrequency.js"
import { isPlainTerm } from "./internal/terms.js"
import { dot, fromBytes, normalize, toBytes } from "./internal/vectors.js"
import { type RecalledMessage, type RecallHit, RecallIndex, type SearchScope, type Unembedded } from "./RecallIndex.js"

interface HitRow {
  readonly threadId: string
  readonly messageId: string
  readonly seq: number | string
}

/** Candidates read per wanted hit: some fall to the exclusions and to duplicate forked copies. */
const overFetch = 8

/** Best first, one hit per message id (a forked copy is the same message), at most `limit`. */
const distinct = (rows: ReadonlyArray<HitRow>, limit: number): ReadonlyArray<RecallHit> => {
  const seen = new Set<string>()
  const hits: Array<RecallHit> = []
  for (const row of rows) {
    if (seen.has(row.messageId)) continue
    seen.add(row.messageId)
    hits.push({ threadId: row.threadId, messageId: row.messageId, seq: Number(row.seq) })
    if (hits.length === limit) break
  }
  return hits
}

/**
 * `RecallIndex` over any `SqlClient` dialect: SQLite FTS5 (bm25) or PostgreSQL full text
 * (tsvector, GIN, ts_rank), both fed by triggers on `messages` (migration 0014). Vectors are
 * compared exactly (cosine over unit vectors) in process.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The current thread, and the messages it shares with others (a fork copies its source's ids).
  const outside = (threadId: string) =>
    sql`e.thread_id <> ${threadId} AND e.message_id NOT IN (SELECT id FROM messages WHERE thread_id = ${threadId})`

  const searchText = (terms: ReadonlyArray<string>, scope: SearchScope) =>
    Effect.flatMap(selectiveTerms(sql, terms.filter(isPlainTerm)), (plain) => rankText(plain, scope)).pipe(
      orStorageError("searching the recall index"),
      Effect.withSpan("RecallIndex.searchText"),
    )

  const rankText = (plain: ReadonlyArray<string>, scope: SearchScope) => {
    if (plain.length === 0 || scope.limit <= 0) return Effect.succeed([])
    const candidates = scope.limit * overFetch
    // Quoted terms: a word such as NEAR or OR is a word, never an operator.
    const rows = sql.onDialectOrElse({
      // The planner overestimates an OR of rare terms and scans the table (50 ms at 100,000
      // messages) where the GIN index takes 15: the index is forced for this statement only.
      pg: () =>
        sql.withTransaction(
          Effect.zipRight(
            sql`SET LOCAL enable_seqscan = off`,
            sql<HitRow>`
              SELECT e.thread_id AS "threadId", e.message_id AS "messageId", m.seq
              FROM (SELECT entry_id, ts_rank(document, q) AS score
                    FROM recall_entries, to_tsquery('english', ${plain.map((t) => `'${t}'`).join(" | ")}) q
                    WHERE document @@ q ORDER BY score DESC LIMIT ${candidates}) hits
              JOIN recall_entries e ON e.entry_id = hits.entry_id
              JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id
              WHERE ${outside(scope.excludeThreadId)}
              ORDER BY hits.score DESC`,
          ),
        ),
      orElse: () => sql<HitRow>`
        SELECT e.thread_id AS "threadId", e.message_id AS "messageId", m.seq
        FROM (SELECT rowid AS entry_id, rank FROM recall_fts
              WHERE recall_fts MATCH ${plain.map((t) => `"${t}"`).join(" OR ")}
              ORDER BY rank LIMIT ${candidates}) hits
        JOIN recall_entries e ON e.entry_id = hits.entry_id
        JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id
        WHERE ${outside(scope.excludeThreadId)}
        ORDER BY hits.rank`,
    })
    return Effect.map(rows, (found) => distinct(found, scope.limit))
  }

  const searchVector = (model: string, vector: ReadonlyArray<number>, scope: SearchScope) =>
    Effect.gen(function* () {
      const query = normalize(vector)
      const rows = yield* sql<HitRow & { readonly vector: Uint8Array }>`
        SELECT e.thread_id AS "threadId", e.message_id AS "messageId", m.seq, v.vector
        FROM recall_embeddings v
        JOIN recall_entries e ON e.entry_id = v.entry_id
        JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id
        WHERE v.model = ${model} AND length(v.vector) > 0 AND ${outside(scope.excludeThreadId)}`
      const scored = rows.map((row) => ({ row, score: dot(query, fromBytes(row.vector)) }))
      scored.sort((a, b) => b.score - a.score)
      return distinct(
        scored.map((entry) => entry.row),
        scope.limit,
      )
    }).pipe(orStorageError("searching the recall embeddings"), Effect.withSpan("RecallIndex.searchVector"))

  const around = (threadId: string, seq: number, range: number) =>
    sql<RecalledMessage & { readonly seq: number | string }>`
      SELECT m.thread_id AS "threadId", t.title AS "threadTitle", m.id AS "messageId", m.seq, m.role, m.parts,
             m.created_at AS "createdAt"
      FROM messages m JOIN threads t ON t.id = m.thread_id
      WHERE m.thread_id = ${threadId} AND m.seq BETWEEN ${seq - range} AND ${seq + range}
      ORDER BY m.seq`.pipe(
      Effect.map((rows) => rows.map((row) => ({ ...row, seq: Number(row.seq) }))),
      orStorageError("reading recalled messages"),
    )

  const unembedded = (threadId: string, model: string, limit: number) =>
    sql<Unembedded & { readonly entryId: number | string }>`
      SELECT e.entry_id AS "entryId", m.parts
      FROM recall_entries e
      JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id
      LEFT JOIN recall_embeddings v ON v.entry_id = e.entry_id AND v.model = ${model}
      WHERE e.thread_id = ${threadId} AND v.entry_id IS NULL
      ORDER BY m.seq LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map((row) => ({ entryId: Number(row.entryId), parts: row.parts }))),
      orStorageError("reading messages to embed"),
    )

  const putEmbeddings = (
    model: string,
    embeddings: ReadonlyArray<{
      readonly entryId: number
      readonly parts: string
      readonly vector: ReadonlyArray<number>
    }>,
  ) =>
    Effect.forEach(
      embeddings,
      ({ entryId, parts, vector }) =>
        // Only if the message still says what was embedded: a rewrite or a delete meanwhile wins.
        sql`INSERT INTO recall_embeddings (entry_id, model, vector)
            SELECT e.entry_id, ${model}, ${toBytes(vector)} FROM recall_entries e
            JOIN messages m ON m.thread_id = e.thread_id AND m.id = e.message_id
            WHERE e.entry_id = ${entryId} AND m.parts = ${parts}
            ON CONFLICT (entry_id) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
      { discard: true },
    ).pipe(orStorageError("storing embeddings"))

  return RecallIndex.of({ searchText, searchVector, around, unembedded, putEmbeddings })
})

/** `RecallIndex` on the `SqlClient` of the threads' messages, migrated first if it is not yet. */
export const layer: Layer.Layer<RecallIndex, StorageError, SqlClient.SqlClient> = Layer.effect(
  RecallIndex,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

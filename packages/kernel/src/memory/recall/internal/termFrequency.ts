import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Terms in more messages than this are left out of a full-text query: they say little about
 * relevance (their bm25 weight is near zero) and ranking costs a score per matching message
 * (≈ 65 ms on SQLite for a term in 70,000 of 100,000 messages, 0.3 ms for one in 170).
 */
const maxTermMessages = 1_000

/** The rarest terms ranked, at most: bounds the messages scored per query. */
const maxRankedTerms = 8

const capped = (sql: SqlClient.SqlClient, term: string) =>
  sql
    .onDialectOrElse({
      pg: () => sql<{ readonly n: number | string }>`SELECT COUNT(*) AS n FROM (
      SELECT 1 FROM recall_entries WHERE document @@ to_tsquery('english', ${`'${term}'`})
      LIMIT ${maxTermMessages + 1}) capped`,
      orElse: () => sql<{ readonly n: number | string }>`SELECT COUNT(*) AS n FROM (
      SELECT 1 FROM recall_fts WHERE recall_fts MATCH ${`"${term}"`} LIMIT ${maxTermMessages + 1})`,
    })
    .pipe(Effect.map((rows) => ({ term, n: Number(rows[0]?.n ?? 0) })))

/**
 * How many messages hold each term, as cheaply as each dialect allows: counted through the
 * full-text index, stopping at the cap (0: absent). PostgreSQL builds the whole GIN bitmap to
 * count (≈ 7 ms for a common term), so once the table has statistics their
 * `most_common_elems` (× rows) are read instead; a term they do not list is rare (1).
 */
const counts = (sql: SqlClient.SqlClient, terms: ReadonlyArray<string>) =>
  sql.onDialectOrElse({
    pg: () =>
      sql<{ readonly term: string; readonly n: number | string | null; readonly analyzed: boolean }>`
        SELECT q.term, s.freq * (SELECT reltuples FROM pg_class WHERE oid = 'recall_entries'::regclass) AS n,
          EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'recall_entries'
                  AND attname = 'document' AND most_common_elems IS NOT NULL) AS analyzed
        FROM unnest(string_to_array(${terms.join(" ")}, ' ')) AS q(term)
        LEFT JOIN LATERAL (
          SELECT max(f.freq) AS freq
          FROM pg_stats p, unnest(p.most_common_elems::text::text[], p.most_common_elem_freqs) AS f(elem, freq)
          WHERE p.schemaname = current_schema() AND p.tablename = 'recall_entries' AND p.attname = 'document'
            AND f.elem = ANY(tsvector_to_array(to_tsvector('english', q.term)))
        ) s ON true`.pipe(
        Effect.flatMap((rows) =>
          // Not analyzed yet (a new or freshly filled table, before autovacuum's first pass): count.
          rows[0]?.analyzed === true
            ? Effect.succeed(rows.map((row) => ({ term: row.term, n: Number(row.n ?? 1) })))
            : Effect.forEach(terms, (term) => capped(sql, term)),
        ),
      ),
    orElse: () => Effect.forEach(terms, (term) => capped(sql, term)),
  })

/** The terms worth ranking (plain words only): present, not too common, the rarest first. */
export const selectiveTerms = (sql: SqlClient.SqlClient, terms: ReadonlyArray<string>) =>
  terms.length === 0
    ? Effect.succeed([])
    : Effect.map(counts(sql, terms), (counted) =>
        counted
          .filter(({ n }) => n > 0 && n <= maxTermMessages)
          .sort((a, b) => a.n - b.n)
          .slice(0, maxRankedTerms)
          .map(({ term }) => term),
      )

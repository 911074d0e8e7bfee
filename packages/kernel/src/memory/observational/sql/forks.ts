import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { orStorageError } from "../../../storage/StorageError.js"
import type { RecordKey } from "../ObservationStore.js"

/**
 * A fork in thread scope inherits its source's observations up to the fork point: each of the
 * source's observations (raw observer output, also those a reflection absorbed) whose messages
 * were all copied into the fork is copied to the fork's record, and covers the copies there.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const inheritFork = (sourceKey: RecordKey, targetKey: RecordKey, threadId: string, newId: () => string, now: Date) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`UPDATE memory_records SET updated_at = updated_at WHERE key = ${targetKey}`
          const [existing] = yield* sql<{ count: number | string }>`
            SELECT COUNT(*) AS count FROM memory_chunks WHERE record_key = ${targetKey}`
          if (Number(existing?.count ?? 0) > 0) return 0
          const counted = yield* sql<{ messageId: string; tokens: number | string }>`
            SELECT message_id AS "messageId", tokens FROM memory_messages
            WHERE record_key = ${targetKey} AND thread_id = ${threadId} AND chunk_id IS NULL`
          const tokensOf = new Map(counted.map((row) => [row.messageId, Number(row.tokens)]))
          const sources = yield* sql<{ messageIds: string; content: string; tokens: number | string }>`
            SELECT message_ids AS "messageIds", content, tokens FROM memory_chunks
            WHERE record_key = ${sourceKey} ORDER BY seq`
          let seq = 0
          let observationTokens = 0
          let covered = 0
          for (const source of sources) {
            const ids = JSON.parse(source.messageIds) as Array<string>
            if (ids.length === 0 || !ids.every((id) => tokensOf.has(id))) continue
            const id = newId()
            seq++
            yield* sql`INSERT INTO memory_chunks (id, record_key, seq, thread_id, message_ids, content, tokens, created_at)
                       VALUES (${id}, ${targetKey}, ${seq}, ${threadId}, ${source.messageIds}, ${source.content},
                               ${Number(source.tokens)}, ${now.toISOString()})`
            yield* sql`UPDATE memory_messages SET chunk_id = ${id}
                       WHERE record_key = ${targetKey} AND thread_id = ${threadId} AND message_id IN ${sql.in(ids)}`
            observationTokens += Number(source.tokens)
            for (const messageId of ids) {
              covered += tokensOf.get(messageId) ?? 0
              tokensOf.delete(messageId)
            }
          }
          if (seq > 0) {
            yield* sql`UPDATE memory_records SET observation_tokens = ${observationTokens},
                         total_tokens_observed = total_tokens_observed + ${covered},
                         last_observed_at = ${now.toISOString()}, updated_at = ${now.toISOString()}
                       WHERE key = ${targetKey}`
          }
          return seq
        }),
      )
      .pipe(orStorageError("copying a fork's observations"))

  return { inheritFork }
})

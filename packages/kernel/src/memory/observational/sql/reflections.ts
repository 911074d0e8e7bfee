import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { orStorageError } from "../../../storage/StorageError.js"
import type { RecordKey } from "../ObservationStore.js"

/** Reflections and forgetting of `SqlObservationStore`. */
export const make = (lockClaimed: (key: RecordKey, token: string) => Effect.Effect<boolean, unknown, never>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const commitReflection = (
      key: RecordKey,
      token: string,
      reflection: {
        readonly generation: number
        readonly content: string
        readonly tokens: number
        readonly absorbed: ReadonlyArray<string>
        readonly createdAt: Date
      },
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            if (!(yield* lockClaimed(key, token))) return false
            const [record] = yield* sql<{ generation: number | string }>`
              SELECT generation_count AS generation FROM memory_records WHERE key = ${key}`
            const active = yield* sql<{ id: string }>`
              SELECT id FROM memory_chunks WHERE record_key = ${key} AND reflected_in IS NULL`
            const absorbed = new Set(reflection.absorbed)
            // The log changed since it was read (a deleted thread's observations were forgotten):
            // this reflection may hold what must be forgotten. Refused; the next one reads again.
            const unchanged =
              Number(record?.generation ?? -1) === reflection.generation - 1 &&
              active.length === absorbed.size &&
              active.every((row) => absorbed.has(row.id))
            if (!unchanged) return false
            const at = reflection.createdAt.toISOString()
            yield* sql`INSERT INTO memory_reflections (record_key, generation, content, tokens, created_at)
                       VALUES (${key}, ${reflection.generation}, ${reflection.content}, ${reflection.tokens}, ${at})`
            if (active.length > 0) {
              yield* sql`UPDATE memory_chunks SET reflected_in = ${reflection.generation}
                         WHERE record_key = ${key} AND reflected_in IS NULL`
            }
            yield* sql`UPDATE memory_records SET generation_count = ${reflection.generation},
                         observation_tokens = ${reflection.tokens}, updated_at = ${at},
                         claim_kind = NULL, claim_token = NULL, claim_until = NULL, failures = 0
                       WHERE key = ${key}`
            return true
          }),
        )
        .pipe(orStorageError("committing a reflection"))

    const reflections = (key: RecordKey) =>
      sql<{ generation: number | string; content: string }>`
        SELECT generation, content FROM memory_reflections WHERE record_key = ${key} ORDER BY generation`.pipe(
        Effect.map((rows) => rows.map((row) => ({ generation: Number(row.generation), content: row.content }))),
        orStorageError("reading reflections"),
      )

    /** One record's orphans forgotten; its active log rebuilt from what is left. */
    const forgetIn = (key: RecordKey, orphans: ReadonlyArray<{ id: string; reflectedIn: number | null }>, now: Date) =>
      Effect.gen(function* () {
        yield* sql`UPDATE memory_records SET updated_at = updated_at WHERE key = ${key}`
        const reflected = orphans.flatMap((orphan) => (orphan.reflectedIn === null ? [] : [orphan.reflectedIn]))
        const [record] = yield* sql<{ generation: number | string }>`
          SELECT generation_count AS generation FROM memory_records WHERE key = ${key}`
        let generation = Number(record?.generation ?? 0)
        if (reflected.length > 0) {
          // Every reflection from the first that absorbed a forgotten chunk holds some of it.
          const first = Math.min(...reflected)
          yield* sql`DELETE FROM memory_reflections WHERE record_key = ${key} AND generation >= ${first}`
          yield* sql`UPDATE memory_chunks SET reflected_in = NULL WHERE record_key = ${key} AND reflected_in >= ${first}`
          generation = first - 1
        }
        yield* sql`DELETE FROM memory_chunks WHERE id IN ${sql.in(orphans.map((orphan) => orphan.id))}`
        const [base] =
          generation === 0
            ? []
            : yield* sql<{ tokens: number | string }>`
                SELECT tokens FROM memory_reflections WHERE record_key = ${key} AND generation = ${generation}`
        const [rest] = yield* sql<{ tokens: number | string | null }>`
          SELECT COALESCE(SUM(tokens), 0) AS tokens FROM memory_chunks WHERE record_key = ${key} AND reflected_in IS NULL`
        const tokens = Number(base?.tokens ?? 0) + Number(rest?.tokens ?? 0)
        yield* sql`UPDATE memory_records SET generation_count = ${generation}, observation_tokens = ${tokens},
                     updated_at = ${now.toISOString()} WHERE key = ${key}`
      })

    const forgetOrphans = (now: Date) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const orphans = yield* sql<{ id: string; recordKey: string; reflectedIn: number | string | null }>`
              SELECT id, record_key AS "recordKey", reflected_in AS "reflectedIn" FROM memory_chunks c
              WHERE NOT EXISTS (SELECT 1 FROM memory_messages m WHERE m.chunk_id = c.id)`
            const byKey = new Map<string, Array<{ id: string; reflectedIn: number | null }>>()
            for (const orphan of orphans) {
              const list = byKey.get(orphan.recordKey) ?? []
              list.push({ id: orphan.id, reflectedIn: orphan.reflectedIn === null ? null : Number(orphan.reflectedIn) })
              byKey.set(orphan.recordKey, list)
            }
            for (const [key, list] of byKey) yield* forgetIn(key, list, now)
            return [...byKey.keys()]
          }),
        )
        .pipe(orStorageError("forgetting observations"))

    const forgetThreads = (threadIds: ReadonlyArray<string>) =>
      threadIds.length === 0
        ? Effect.void
        : sql`DELETE FROM memory_messages WHERE thread_id IN ${sql.in(threadIds)}`.pipe(
            Effect.asVoid,
            orStorageError("forgetting threads' messages"),
          )

    return { commitReflection, reflections, forgetOrphans, forgetThreads }
  })

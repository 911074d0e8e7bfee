import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import { MemoryStore, type WorkingDocument } from "./MemoryStore.js"
import { schema } from "./memorySchema.js"

interface WorkingRow {
  readonly content: string
  readonly version: number | string
  readonly updatedAt: string
}

const toDocument = (row: WorkingRow): WorkingDocument => ({
  content: row.content,
  version: Number(row.version),
  updatedAt: new Date(row.updatedAt),
})

/** `MemoryStore` over any `SqlClient` dialect (tables `working_memory`, `working_memory_versions`). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const readWorking = (scope: string) =>
    sql<WorkingRow>`SELECT content, version, updated_at AS "updatedAt" FROM working_memory WHERE scope = ${scope}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDocument)),
      orStorageError("reading working memory"),
    )

  const writeWorking = (scope: string, content: string, expectedVersion: number, at: Date, keepVersions: number) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const updatedAt = at.toISOString()
          // One conditional statement decides a race: the insert of the first version, or the
          // update of the version the writer read. The loser gets no row back.
          const written =
            expectedVersion === 0
              ? yield* sql<WorkingRow>`
                  INSERT INTO working_memory (scope, content, version, updated_at)
                  VALUES (${scope}, ${content}, 1, ${updatedAt})
                  ON CONFLICT (scope) DO NOTHING
                  RETURNING content, version, updated_at AS "updatedAt"`
              : yield* sql<WorkingRow>`
                  UPDATE working_memory SET content = ${content}, version = version + 1, updated_at = ${updatedAt}
                  WHERE scope = ${scope} AND version = ${expectedVersion}
                  RETURNING content, version, updated_at AS "updatedAt"`
          if (written[0] === undefined) return Option.none<WorkingDocument>()
          const document = toDocument(written[0])
          yield* sql`INSERT INTO working_memory_versions (scope, version, content, created_at)
                     VALUES (${scope}, ${document.version}, ${content}, ${updatedAt})`
          yield* sql`DELETE FROM working_memory_versions
                     WHERE scope = ${scope} AND version <= ${document.version - keepVersions}`
          return Option.some(document)
        }),
      )
      .pipe(orStorageError("writing working memory"))

  const workingHistory = (scope: string) =>
    sql<WorkingRow>`
      SELECT content, version, created_at AS "updatedAt" FROM working_memory_versions
      WHERE scope = ${scope} ORDER BY version DESC`.pipe(
      Effect.map((rows) => rows.map(toDocument)),
      orStorageError("reading working memory versions"),
    )

  return MemoryStore.of({ readWorking, writeWorking, workingHistory })
})

/** `MemoryStore` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<MemoryStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  MemoryStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

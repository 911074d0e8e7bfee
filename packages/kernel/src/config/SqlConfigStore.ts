import { SqlClient, SqlError } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { StorageError } from "../storage/StorageError.js"
import { ConfigStore } from "./ConfigStore.js"
import { isJsonObject, type JsonObject } from "./MergePatch.js"

const parseDocument = (text: string | undefined) =>
  Effect.try({
    try: (): JsonObject => {
      if (text === undefined) return {}
      const value: unknown = JSON.parse(text)
      if (!isJsonObject(value)) throw new Error("the stored config is not a JSON object")
      return value
    },
    catch: (cause) => new StorageError({ message: "reading the stored config failed", cause }),
  })

/**
 * `ConfigStore` over any `SqlClient` dialect: one row (`app_config`, created by migration
 * 0002_config) holding the document as JSON text.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // PostgreSQL: replicas sharing the database queue on the row lock, so no patch is lost.
  // SQLite: the client runs one transaction at a time.
  const selectForUpdate = sql.onDialectOrElse({
    pg: () => sql<{ readonly document: string }>`SELECT document FROM app_config WHERE id = 1 FOR UPDATE`,
    orElse: () => sql<{ readonly document: string }>`SELECT document FROM app_config WHERE id = 1`,
  })

  const load = sql<{ readonly document: string }>`SELECT document FROM app_config WHERE id = 1`.pipe(
    Effect.mapError((cause) => new StorageError({ message: "reading the config failed", cause })),
    Effect.flatMap((rows) => parseDocument(rows[0]?.document)),
  )

  const update = <E>(f: (stored: JsonObject) => Effect.Effect<JsonObject, E>) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const stored = yield* Effect.flatMap(selectForUpdate, (rows) => parseDocument(rows[0]?.document))
          const next = yield* f(stored)
          const now = new Date(yield* Clock.currentTimeMillis).toISOString()
          yield* sql`INSERT INTO app_config (id, document, updated_at) VALUES (1, ${JSON.stringify(next)}, ${now})
                     ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at`
          return next
        }),
      )
      .pipe(
        Effect.mapError((error) =>
          error instanceof SqlError.SqlError
            ? new StorageError({ message: "storing the config failed", cause: error })
            : (error as E | StorageError),
        ),
      )

  return ConfigStore.of({ load, update })
})

export const layer: Layer.Layer<ConfigStore, never, SqlClient.SqlClient> = Layer.effect(ConfigStore, make)

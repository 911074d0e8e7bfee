import { SqlClient, SqlError } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { StorageError } from "../storage/StorageError.js"
import { ConfigStore, type RejectedConfig } from "./ConfigStore.js"
import { schema } from "./configSchema.js"

/**
 * `ConfigStore` over any `SqlClient` dialect: one row (`app_config`, created by migration
 * 0002_config) holding the document as JSON text; rejected documents in `config_rejected`
 * (migration 0009_config_rejected).
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
    Effect.map((rows) => rows[0]?.document ?? "{}"),
    Effect.mapError((cause) => new StorageError({ message: "reading the config failed", cause })),
  )

  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

  const update = <E>(f: (stored: string) => Effect.Effect<string, E>) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const next = yield* f((yield* selectForUpdate)[0]?.document ?? "{}")
          yield* sql`INSERT INTO app_config (id, document, updated_at) VALUES (1, ${next}, ${yield* now})
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

  // Once per distinct text: every start finding the same bad row would otherwise add a copy.
  const setAside = (document: string, reason: string) =>
    Effect.flatMap(
      now,
      (rejectedAt) => sql`INSERT INTO config_rejected (document, reason, rejected_at)
                          SELECT ${document}, ${reason}, ${rejectedAt}
                          WHERE NOT EXISTS (SELECT 1 FROM config_rejected WHERE document = ${document})`,
    ).pipe(
      Effect.asVoid,
      Effect.mapError((cause) => new StorageError({ message: "setting the rejected config aside failed", cause })),
    )

  const rejected = sql<{
    readonly document: string
    readonly reason: string
    readonly rejected_at: string
  }>`SELECT document, reason, rejected_at FROM config_rejected ORDER BY rejected_at`.pipe(
    Effect.map((rows) =>
      rows.map((row): RejectedConfig => ({ document: row.document, reason: row.reason, rejectedAt: row.rejected_at })),
    ),
    Effect.mapError((cause) => new StorageError({ message: "reading the rejected configs failed", cause })),
  )

  return ConfigStore.of({ load, update, setAside, rejected })
})

export const layer: Layer.Layer<ConfigStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  ConfigStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

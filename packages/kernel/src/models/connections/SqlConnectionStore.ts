import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import * as SqlMigrations from "../../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../../storage/StorageError.js"
import { ConnectionStore } from "./ConnectionStore.js"
import { schema } from "./connectionSchema.js"

interface Row {
  readonly provider: string
  readonly sealed: string
  readonly updatedAt: string
}

/** `ConnectionStore` over any `SqlClient` dialect (SQLite, PostgreSQL). */
export const make: Effect.Effect<ConnectionStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return ConnectionStore.of({
    list: sql<Row>`SELECT provider, sealed, updated_at AS "updatedAt" FROM provider_connections
      ORDER BY provider`.pipe(
      Effect.map((rows) => rows.map((row) => ({ ...row, updatedAt: new Date(row.updatedAt) }))),
      orStorageError("list provider connections"),
    ),
    put: (provider, sealed) =>
      Effect.gen(function* () {
        const updatedAt = new Date(yield* Clock.currentTimeMillis)
        yield* sql`INSERT INTO provider_connections (provider, sealed, updated_at)
          VALUES (${provider}, ${sealed}, ${updatedAt.toISOString()})
          ON CONFLICT (provider) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`
        return { provider, sealed, updatedAt }
      }).pipe(orStorageError("save a provider connection")),
    remove: (provider) =>
      sql<{ readonly provider: string }>`DELETE FROM provider_connections WHERE provider = ${provider}
        RETURNING provider`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStorageError("remove a provider connection"),
      ),
  })
})

/** `ConnectionStore` on the kernel's `SqlClient` (table of migration `0019_provider_connections`). */
export const layer: Layer.Layer<ConnectionStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  ConnectionStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

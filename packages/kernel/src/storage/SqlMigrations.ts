import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as Migrations from "./migrations.js"
import { StorageError } from "./StorageError.js"

/**
 * The schema of the SQL stores, brought up to date on whatever `SqlClient` they are given:
 * every `Sql*` store Layer provides itself with this Layer, so a database Aide never saw (an
 * embedder's own pool) works as well as one `SqliteStorage` opened. Layers are memoized by
 * reference, so in one composition the migrations run once, before the first store is made;
 * the migrator's table (`aide_migrations`) makes a second run, or a concurrent replica, a no-op.
 */
export const SqlMigrations: Layer.Layer<never, StorageError, SqlClient.SqlClient> = Layer.effectDiscard(
  Migrations.run.pipe(
    Effect.mapError((cause) => new StorageError({ message: "migrating the database failed", cause })),
    Effect.withSpan("SqlMigrations"),
  ),
)

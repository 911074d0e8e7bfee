import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { Ids } from "../ids/Ids.js"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import { catalog, type Stores } from "./Stores.js"

/** The schema of each SQL store, in the order a fresh database gets them (`Stores.catalog`). */
export const schemas: ReadonlyArray<SqlMigrations.Schema> = catalog.schemas

/** Brings the schema of every SQL store up to date (each store also does so for its own when built). */
export const ensureMigrated: Effect.Effect<void, StorageError, SqlClient.SqlClient> = Effect.forEach(
  schemas,
  SqlMigrations.ensure,
  { discard: true },
)

/** `ensureMigrated` as a Layer: put it over a connection to get one with every store's tables. */
export const migrated: Layer.Layer<never, StorageError, SqlClient.SqlClient> = Layer.effectDiscard(ensureMigrated)

/**
 * Every store on one `SqlClient` (SQLite or PostgreSQL), each migrating its own schema first:
 * give it a connection (`SqliteStorage`, `PostgresStorage` or your own pool) and it provides the
 * stores. Each `Sql*.layer` also works alone.
 */
export const layer: Layer.Layer<Stores, StorageError, SqlClient.SqlClient | Ids> = catalog.sql

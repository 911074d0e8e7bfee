import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Layer, type Redacted } from "effect"
import { StorageError } from "./StorageError.js"

export interface PostgresStorageOptions {
  /** `postgres://user@host:port/database` */
  readonly url: Redacted.Redacted<string>
  /** Pool size; default 10. */
  readonly maxConnections?: number
}

/**
 * PostgreSQL storage for scale-out: several server replicas share one database. Provides the
 * connection pool only; the SQL stores migrate the schema (the migrator's lock makes
 * concurrent starts of replicas safe).
 */
export const layer = (options: PostgresStorageOptions): Layer.Layer<SqlClient.SqlClient, StorageError> =>
  PgClient.layer({
    url: options.url,
    maxConnections: options.maxConnections ?? 10,
    applicationName: "aide",
  }).pipe(Layer.mapError((cause) => new StorageError({ message: "preparing the PostgreSQL database failed", cause })))

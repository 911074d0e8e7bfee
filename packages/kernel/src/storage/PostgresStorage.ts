import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Layer, type Redacted } from "effect"
import { StorageError } from "./StorageError.js"

export interface PostgresStorageOptions {
  /** `postgres://user@host:port/database` */
  readonly url: Redacted.Redacted<string>
  /** Pool size; default 10. */
  readonly maxConnections?: number
  /**
   * Longest wait for a connection (a new one, or a free one of a busy pool): past it the query
   * fails (`StorageError`, the server's 503) instead of hanging while PostgreSQL is unreachable;
   * default 5 s.
   */
  readonly acquireTimeout?: Duration.DurationInput
}

/**
 * PostgreSQL storage for scale-out: several server replicas share one database. Provides the
 * connection pool only (as `PgClient` too, for `PgReplicaSignals`); the SQL stores migrate the schema (the migrator's lock makes
 * concurrent starts of replicas safe).
 */
export const layer = (
  options: PostgresStorageOptions,
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StorageError> =>
  PgClient.layer({
    url: options.url,
    maxConnections: options.maxConnections ?? 10,
    connectTimeout: options.acquireTimeout ?? Duration.seconds(5),
    applicationName: "aide",
  }).pipe(Layer.mapError((cause) => new StorageError({ message: "preparing the PostgreSQL database failed", cause })))

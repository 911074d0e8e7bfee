import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Redacted } from "effect"
import { DatabasePool } from "./DatabasePool.js"
import { pg } from "./internal/pgDriver.js"
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
 * connection pool only (as `PgClient` too, for `PgReplicaSignals`, and as `DatabasePool` for its
 * usage); the SQL stores migrate the schema (the migrator's lock makes concurrent starts of
 * replicas safe).
 */
export const layer = (
  options: PostgresStorageOptions,
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DatabasePool, StorageError> => {
  const max = options.maxConnections ?? 10
  const connectTimeout = Duration.decode(options.acquireTimeout ?? Duration.seconds(5))
  // Our own pool (as `PgClient.layer` would make it) so that its counters can be read.
  const acquire = Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new (await pg()).Pool({
          connectionString: Redacted.value(options.url),
          connectionTimeoutMillis: Duration.toMillis(connectTimeout),
          max,
          application_name: "aide",
        })
        // An idle connection's error (a restarted server) is the pool's to replace, not a crash.
        pool.on("error", () => {})
        try {
          await pool.query("SELECT 1")
        } catch (cause) {
          await pool.end().catch(() => {})
          throw cause
        }
        return pool
      },
      catch: (cause) => new StorageError({ message: "preparing the PostgreSQL database failed", cause }),
    }).pipe(
      Effect.timeoutFail({
        duration: connectTimeout,
        onTimeout: () =>
          new StorageError({ message: "preparing the PostgreSQL database failed: no connection in time" }),
      }),
    ),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000)),
  )
  return Layer.unwrapScoped(
    Effect.map(acquire, (pool) =>
      Layer.merge(
        PgClient.layerFromPool({ acquire: Effect.succeed(pool as never), applicationName: "aide" }),
        Layer.succeed(
          DatabasePool,
          DatabasePool.of({
            usage: Effect.sync(() => ({
              max,
              inUse: pool.totalCount - pool.idleCount,
              idle: pool.idleCount,
              waiting: pool.waitingCount,
            })),
          }),
        ),
      ),
    ),
  ).pipe(
    Layer.mapError((cause) =>
      cause._tag === "StorageError"
        ? cause
        : new StorageError({ message: "preparing the PostgreSQL database failed", cause }),
    ),
  )
}

import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Layer, type Redacted } from "effect"
import * as Migrations from "./migrations.js"
import { StorageError } from "./StorageError.js"

export interface PostgresStorageOptions {
  /** `postgres://user@host:port/database` */
  readonly url: Redacted.Redacted<string>
  /** Pool size; default 10. */
  readonly maxConnections?: number
}

/**
 * PostgreSQL storage for scale-out: several server replicas share one database. Migrated at
 * start; the migrator's lock makes concurrent starts safe.
 */
export const layer = (options: PostgresStorageOptions): Layer.Layer<SqlClient.SqlClient, StorageError> =>
  Layer.effectDiscard(Migrations.run).pipe(
    Layer.provideMerge(
      PgClient.layer({
        url: options.url,
        maxConnections: options.maxConnections ?? 10,
        applicationName: "aide",
      }),
    ),
    Layer.mapError((cause) => new StorageError({ message: "preparing the PostgreSQL database failed", cause })),
  )

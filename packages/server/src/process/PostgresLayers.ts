import { Ids, type StorageError } from "@aide/kernel"
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, type Redacted } from "effect"

/** PostgreSQL is loaded only when asked for, so SQLite servers never pay for the driver. */
export const postgresStorage = (
  url: Redacted.Redacted<string>,
  timeoutSeconds: number | undefined,
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StorageError.StorageError> =>
  Layer.unwrapEffect(
    Effect.promise(() => import("@aide/kernel/postgres")).pipe(
      Effect.map(({ PostgresStorage }) =>
        PostgresStorage.layer({
          url,
          ...(timeoutSeconds === undefined ? {} : { acquireTimeout: Duration.seconds(timeoutSeconds) }),
        }),
      ),
    ),
  )

/**
 * On PostgreSQL the server may be one of several replicas: the scheduler, the inbox sweep and
 * channel connections run where the lease is. On the same `storage` Layer (one pool: Layers are
 * shared by reference within the kernel).
 */
export const postgresReplicas = (
  storage: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, StorageError.StorageError>,
  ttlSeconds: number | undefined,
  replicaId: string | undefined,
) => {
  const ttl = ttlSeconds === undefined ? {} : { ttl: Duration.seconds(ttlSeconds) }
  const postgres = Effect.promise(() => import("@aide/kernel/postgres"))
  const on = <A>(
    make: (
      module: Effect.Effect.Success<typeof postgres>,
    ) => Layer.Layer<A, StorageError.StorageError, PgClient.PgClient | SqlClient.SqlClient | Ids.Ids>,
  ) => Layer.unwrapEffect(Effect.map(postgres, (module) => make(module).pipe(Layer.provide([storage, Ids.layer]))))
  return {
    leases: on(({ PgLeases }) => PgLeases.layer(ttl)),
    threadClaims: on(({ PgThreadClaims }) =>
      PgThreadClaims.layer(replicaId === undefined ? ttl : { ...ttl, replicaId }),
    ),
    replicaSignals: on(({ PgReplicaSignals }) => PgReplicaSignals.layer),
  }
}

import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { Ids } from "../ids/Ids.js"
import { StorageError, sqlErrorsAsStorage } from "../storage/StorageError.js"
import { Leases } from "./Leases.js"
import { ensureReplicaTables } from "./replicaMigrations.js"

export interface PgLeasesOptions {
  /** How long a lease lasts without renewal: the failover time after a replica dies; default 5 s. */
  readonly ttl?: Duration.DurationInput
}

export const defaultTtl = Duration.seconds(5)

/**
 * `Leases` in PostgreSQL (table `aide_leases`): one conditional upsert takes a free or expired
 * lease, or renews our own, so two replicas can never both hold one. Expiry is the database's
 * clock. A call that takes longer than a third of the lease's time fails: a renewal answered
 * after the lease may have expired must not count as held.
 */
export const make = (options: PgLeasesOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* ensureReplicaTables
    const holder = yield* Effect.flatMap(Ids, (ids) => ids.uuid)
    const ttl = Duration.decode(options.ttl ?? defaultTtl)
    const ttlMillis = Duration.toMillis(ttl)
    const bounded = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        sqlErrorsAsStorage(operation),
        Effect.timeoutFail({
          duration: Duration.millis(Math.max(100, Math.floor(ttlMillis / 3))),
          onTimeout: () => new StorageError({ message: `${operation} timed out` }),
        }),
      )

    const acquire = (name: string) =>
      bounded(
        "taking a lease",
        sql<{ readonly holder: string }>`
          INSERT INTO aide_leases (name, holder, expires_at)
          VALUES (${name}, ${holder}, clock_timestamp() + make_interval(secs => ${ttlMillis / 1000}))
          ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE aide_leases.holder = EXCLUDED.holder OR aide_leases.expires_at < clock_timestamp()
          RETURNING holder`,
      ).pipe(Effect.map((rows) => rows.length === 1))

    const release = (name: string) =>
      bounded("releasing a lease", sql`DELETE FROM aide_leases WHERE name = ${name} AND holder = ${holder}`).pipe(
        Effect.asVoid,
      )

    return Leases.of({ holder, acquire, release, ttl })
  })

/** `Leases` over the kernel's PostgreSQL `SqlClient`. */
export const layer = (options: PgLeasesOptions = {}): Layer.Layer<Leases, StorageError, SqlClient.SqlClient | Ids> =>
  Layer.effect(Leases, make(options))

import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Schedule } from "effect"
import { Ids } from "../ids/Ids.js"
import { StorageError, sqlErrorsAsStorage } from "../storage/StorageError.js"
import { ensureReplicaTables } from "./replicaMigrations.js"
import { ThreadClaims } from "./ThreadClaims.js"

export interface PgThreadClaimsOptions {
  /** How long a claim lasts without renewal (a dead replica's threads are busy this long); default 5 s. */
  readonly ttl?: Duration.DurationInput
  /**
   * This replica's lasting name (the server keeps one in its data directory, under a lock). A
   * claim found under it at start is a previous life's, whose runs died with it (`kill -9`, a
   * crash): released at once rather than leaving its threads busy until the claims expire. Two
   * live processes must never share one; without it each start is a new holder.
   */
  readonly replicaId?: string
}

/**
 * `ThreadClaims` in PostgreSQL (table `aide_thread_claims`): a claim is one conditional upsert
 * (free or expired rows only), renewed every third of its time to live by one UPDATE of all the
 * threads this replica runs. Expiry is the database's clock.
 */
export const make = (options: PgThreadClaimsOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* ensureReplicaTables
    const holder = options.replicaId ?? (yield* Effect.flatMap(Ids, (ids) => ids.uuid))
    const ttlMillis = Duration.toMillis(Duration.decode(options.ttl ?? Duration.seconds(5)))
    const expiry = sql`clock_timestamp() + make_interval(secs => ${ttlMillis / 1000})`
    const bounded = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        sqlErrorsAsStorage(operation),
        Effect.timeoutFail({
          duration: Duration.millis(Math.max(100, Math.floor(ttlMillis / 3))),
          onTimeout: () => new StorageError({ message: `${operation} timed out` }),
        }),
      )
    if (options.replicaId !== undefined) {
      // Best effort: claims left behind still expire by themselves.
      yield* bounded(
        "releasing a previous life's thread claims",
        sql`DELETE FROM aide_thread_claims WHERE holder = ${holder}`,
      ).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("replicas: releasing thread claims left by a previous start failed; they expire").pipe(
            Effect.annotateLogs({ error: error.message }),
          ),
        ),
      )
    }
    // The threads whose claims we renew: only those, so a claim whose release failed still expires.
    const held = new Set<string>()

    const claim = (threadId: string) =>
      bounded(
        "claiming a thread",
        sql<{ readonly holder: string }>`
          INSERT INTO aide_thread_claims (thread_id, holder, expires_at) VALUES (${threadId}, ${holder}, ${expiry})
          ON CONFLICT (thread_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
          WHERE aide_thread_claims.holder = EXCLUDED.holder OR aide_thread_claims.expires_at < clock_timestamp()
          RETURNING holder`,
      ).pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.tap((ours) => Effect.sync(() => ours && held.add(threadId))),
      )

    const release = (threadId: string) =>
      Effect.suspend(() => {
        held.delete(threadId)
        return bounded(
          "releasing a thread",
          sql`DELETE FROM aide_thread_claims WHERE thread_id = ${threadId} AND holder = ${holder}`,
        )
      }).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("replicas: releasing a thread claim failed; it expires").pipe(
            Effect.annotateLogs({ threadId, error: error.message }),
          ),
        ),
      )

    const heldElsewhere = (threadId: string) =>
      bounded(
        "reading a thread claim",
        sql<{ readonly holder: string }>`
          SELECT holder FROM aide_thread_claims WHERE thread_id = ${threadId} AND expires_at > clock_timestamp()`,
      ).pipe(Effect.map((rows) => rows.some((row) => row.holder !== holder)))

    const renew = Effect.suspend(() => {
      if (held.size === 0) return Effect.void
      return bounded(
        "renewing thread claims",
        sql`UPDATE aide_thread_claims SET expires_at = ${expiry}
            WHERE holder = ${holder} AND ${sql.in("thread_id", [...held])}`,
      )
    }).pipe(
      Effect.catchAll((error) =>
        Effect.logWarning("replicas: renewing thread claims failed").pipe(
          Effect.annotateLogs({ error: error.message }),
        ),
      ),
    )
    yield* Effect.forkScoped(Effect.repeat(renew, Schedule.spaced(Duration.millis(Math.max(50, ttlMillis / 3)))))

    return ThreadClaims.of({ claim, release, heldElsewhere })
  })

/** `ThreadClaims` over the kernel's PostgreSQL `SqlClient`; renewals run in the layer's scope. */
export const layer = (
  options: PgThreadClaimsOptions = {},
): Layer.Layer<ThreadClaims, StorageError, SqlClient.SqlClient | Ids> => Layer.scoped(ThreadClaims, make(options))

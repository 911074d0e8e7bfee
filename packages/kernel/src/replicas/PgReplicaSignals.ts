import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import * as PgListener from "./internal/pgListener.js"
import { ReplicaSignals } from "./ReplicaSignals.js"

/** PostgreSQL channel names are identifiers (at most 63 bytes): ours are prefixed, the rest is the caller's. */
const pgChannel = (channel: string) => `aide:${channel}`

/**
 * `ReplicaSignals` over PostgreSQL `LISTEN/NOTIFY`: every replica on the database hears every
 * message, this one included. One connection of its own, outside the pool, listens; when it is
 * lost (killed, PostgreSQL restarted) it is made again every second until it is back, and each
 * channel listened to again (messages sent meanwhile are lost, as the interface allows).
 * Payloads over 8,000 bytes are refused by PostgreSQL: keep them small.
 */
export const layer: Layer.Layer<ReplicaSignals, never, PgClient.PgClient> = Layer.scoped(
  ReplicaSignals,
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const listener = yield* PgListener.make(pg.config)
    return ReplicaSignals.of({
      publish: (channel, message) =>
        // `pg_notify`, not the client's `notify`: `NOTIFY` takes no bound parameters.
        pg`SELECT pg_notify(${pgChannel(channel)}, ${message})`.pipe(
          Effect.catchAll((error) =>
            Effect.logWarning("replicas: a signal could not be sent").pipe(
              Effect.annotateLogs({ channel, error: error.message }),
            ),
          ),
        ),
      subscribe: (channel) => listener.listen(pgChannel(channel)),
    })
  }),
)

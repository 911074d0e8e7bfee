import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Schedule, Stream } from "effect"
import { ReplicaSignals } from "./ReplicaSignals.js"

/** PostgreSQL channel names are identifiers (at most 63 bytes): ours are prefixed, the rest is the caller's. */
const pgChannel = (channel: string) => `aide:${channel}`

/**
 * `ReplicaSignals` over PostgreSQL `LISTEN/NOTIFY`: every replica on the database hears every
 * message, this one included. The driver listens on one connection of its own, outside the
 * pool; a `LISTEN` that fails is retried every second (messages sent meanwhile are lost, as
 * the interface allows). Payloads over 8,000 bytes are refused by PostgreSQL: keep them small.
 */
export const layer: Layer.Layer<ReplicaSignals, never, PgClient.PgClient> = Layer.effect(
  ReplicaSignals,
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
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
      subscribe: (channel) =>
        pg.listen(pgChannel(channel)).pipe(
          Stream.tapError((error) =>
            Effect.logWarning("replicas: listening for signals failed; retrying").pipe(
              Effect.annotateLogs({ channel, error: error.message }),
            ),
          ),
          Stream.retry(Schedule.spaced("1 second")),
          Stream.catchAll(() => Stream.empty),
        ),
    })
  }),
)

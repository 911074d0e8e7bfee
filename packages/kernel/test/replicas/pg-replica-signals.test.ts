import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Logger, Schedule, Stream } from "effect"
import * as PgReplicaSignals from "../../src/replicas/PgReplicaSignals.js"
import { ReplicaSignals } from "../../src/replicas/ReplicaSignals.js"
import { freshStorageLayer, postgresAvailable } from "../support/postgres.js"

/** Publishes `message` every 100 ms until a subscriber of `channel` has heard it; fails after `within`. */
const publishUntilHeard = (channel: string, message: string, within: "5 seconds") =>
  Effect.gen(function* () {
    const signals = yield* ReplicaSignals
    const heard = yield* Effect.fork(
      Stream.runHead(Stream.filter(signals.subscribe(channel), (received) => received === message)),
    )
    yield* Effect.sleep("100 millis") // the subscription's own LISTEN, issued when the stream starts
    yield* signals.publish(channel, message).pipe(Effect.repeat(Schedule.spaced("100 millis")), Effect.fork)
    return yield* Fiber.join(heard).pipe(Effect.timeout(within))
  }).pipe(Effect.scoped)

describe.runIf(postgresAvailable)("PgReplicaSignals (LISTEN/NOTIFY)", () => {
  it.scopedLive("a message published reaches subscribers of its channel only, this replica included", () =>
    Effect.gen(function* () {
      const signals = yield* ReplicaSignals
      const stops = yield* Effect.fork(Stream.runCollect(Stream.take(signals.subscribe("chat.stop"), 2)))
      const other = yield* Effect.fork(Stream.runCollect(Stream.take(signals.subscribe("config.changed"), 1)))
      // LISTEN is issued when the stream starts: publish until the subscriber has heard one.
      yield* Effect.sleep("300 millis")
      yield* signals.publish("chat.stop", "thread-1")
      yield* signals.publish("chat.stop", "thread-2")
      yield* signals.publish("config.changed", "v2")
      expect(Chunk.toArray(yield* Fiber.join(stops))).toEqual(["thread-1", "thread-2"])
      expect(Chunk.toArray(yield* Fiber.join(other))).toEqual(["v2"])
    }).pipe(Effect.provide(PgReplicaSignals.layer), Effect.provide(freshStorageLayer)),
  )

  it.scopedLive(
    "a killed LISTEN connection comes back: a signal sent afterwards is heard, loss and return logged once",
    () => {
      const logs: Array<string> = []
      const collect = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message }) => logs.push(Array.isArray(message) ? message.join(" ") : String(message))),
      )
      return Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const signals = yield* ReplicaSignals
        // A subscriber that lives through the loss, as the server's do.
        const lasting = yield* Effect.fork(
          Stream.runHead(Stream.filter(signals.subscribe("config.changed"), (message) => message === "after")),
        )
        yield* publishUntilHeard("config.changed", "before", "5 seconds")
        // The connection whose last statement was a (UN)LISTEN, in this test's database only (the
        // server is shared with other suites); pool connections never run either.
        const killed = yield* sql<{ readonly killed: boolean }>`
        SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
        WHERE (query ILIKE 'LISTEN%' OR query ILIKE 'UNLISTEN%') AND datname = current_database()`
        expect(killed.length).toBeGreaterThan(0)
        yield* publishUntilHeard("config.changed", "after", "5 seconds")
        expect(yield* Fiber.join(lasting).pipe(Effect.timeout("1 second"))).toEqual(
          expect.objectContaining({ value: "after" }),
        )
        expect(logs.filter((line) => line.includes("LISTEN connection is lost"))).toHaveLength(1)
        expect(logs.filter((line) => line.includes("LISTEN connection is back"))).toHaveLength(1)
      }).pipe(
        Effect.provide(PgReplicaSignals.layer.pipe(Layer.provideMerge(freshStorageLayer))),
        Effect.provide(collect),
      )
    },
  )
})

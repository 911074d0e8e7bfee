import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import * as PgReplicaSignals from "../../src/replicas/PgReplicaSignals.js"
import { ReplicaSignals } from "../../src/replicas/ReplicaSignals.js"
import { freshStorageLayer, postgresAvailable } from "../support/postgres.js"

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
})

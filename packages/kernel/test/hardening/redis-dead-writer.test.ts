import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Scope, Stream } from "effect"
import * as StreamHub from "../../src/chat/StreamHub.js"
import * as RedisConnection from "../../src/redis/RedisConnection.js"
import * as RedisStreamHub from "../../src/redis/RedisStreamHub.js"
import { writerLost } from "../../src/redis/StreamMirrors.js"

/**
 * A replica that dies mid-run (issue 32, item 5): its stream lease lapses after `lease`, and the
 * other replicas' readers end its stream then, the same way, with `writerLost`.
 */
const redisUrl = process.env.AIDE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
const lease = Duration.millis(600)

const hubIn = (scope: Scope.Scope, keyPrefix: string) =>
  Effect.map(
    Layer.buildWithScope(
      RedisStreamHub.layer({ retention: Duration.seconds(5), lease }).pipe(
        Layer.provide(RedisConnection.layer({ url: Redacted.make(redisUrl), keyPrefix })),
      ),
      scope,
    ),
    (context) => context.unsafeMap.get(StreamHub.StreamHub.key) as StreamHub.StreamHub["Type"],
  )

const collect = (stream: Stream.Stream<StreamHub.StreamEvent>) =>
  Effect.map(Stream.runCollect(stream), (events) => Chunk.toReadonlyArray(events))

describe("Redis stream hub: a writer that dies", () => {
  it.scopedLive(
    "its followers on other replicas end within about the lease, with an error chunk; the thread is free",
    () =>
      Effect.gen(function* () {
        const keyPrefix = `aide-test:${randomUUID()}:`
        const dying = yield* Scope.make()
        const a = yield* hubIn(dying, keyPrefix)
        const b = yield* hubIn(yield* Effect.scope, keyPrefix)
        const c = yield* hubIn(yield* Effect.scope, keyPrefix)
        const thread = randomUUID()
        const writer = yield* a.open(thread)
        yield* writer.publishAll([{ n: 1 }, { n: 2 }])
        const following = yield* Effect.fork(collect(Option.getOrThrow(yield* b.subscribe(thread, 1))))
        yield* writer.publish({ n: 3 })
        // A dies: its renewals stop, and its stream never gets its end from it.
        yield* Effect.sleep(Duration.millis(100))
        const diedAt = Date.now()
        yield* Scope.close(dying, Exit.void)

        const events = yield* Fiber.join(following)
        const endedAfter = Date.now() - diedAt
        expect(events.map((event) => event.chunk)).toEqual([{ n: 2 }, { n: 3 }, writerLost])
        expect(events.map((event) => event.id)).toEqual([2, 3, 4])
        // Lease (600 ms) plus a reader's check (a third of it) and some slack; was 2 s + 30 s.
        expect(endedAfter).toBeLessThan(1_500)
        // Another replica, resuming later, sees the same end; the thread is no longer active.
        expect((yield* collect(Option.getOrThrow(yield* c.subscribe(thread, 3)))).map((event) => event.chunk)).toEqual([
          writerLost,
        ])
        expect(yield* c.isActive(thread)).toBe(false)
        expect(yield* b.activeThreadIds).not.toContain(thread)
        const next = yield* b.open(thread)
        yield* next.finish
      }),
  )
})

import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Fiber, Layer, Option, Redacted, Stream } from "effect"
import * as StreamHub from "../src/chat/StreamHub.js"
import { RateLimiter } from "../src/ratelimit/RateLimiter.js"
import * as RedisConnection from "../src/redis/RedisConnection.js"
import * as RedisRateLimiter from "../src/redis/RedisRateLimiter.js"
import * as RedisSignals from "../src/redis/RedisSignals.js"
import * as RedisStreamHub from "../src/redis/RedisStreamHub.js"
import { ReplicaSignals } from "../src/replicas/ReplicaSignals.js"

const redisUrl = process.env.AIDE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/**
 * Two "replicas": each its own connection and Layers, on one Redis and one key prefix unique to
 * the test (other runs share the server).
 */
const replicas = <I, E>(build: Layer.Layer<I, E, RedisConnection.RedisConnection>, url = redisUrl) => {
  const keyPrefix = `aide-test:${randomUUID()}:`
  const one = () =>
    Layer.build(build.pipe(Layer.provide(RedisConnection.layer({ url: Redacted.make(url), keyPrefix }))))
  return Effect.all([one(), one()])
}

const collect = (stream: Stream.Stream<StreamHub.StreamEvent>) =>
  Effect.map(Stream.runCollect(stream), (events) => Chunk.toReadonlyArray(events))

const hubOf = Effect.map(
  replicas(RedisStreamHub.layer({ retention: Duration.seconds(5) })),
  ([a, b]) => [a.unsafeMap.get(StreamHub.StreamHub.key), b.unsafeMap.get(StreamHub.StreamHub.key)] as const,
) as Effect.Effect<readonly [StreamHub.StreamHub["Type"], StreamHub.StreamHub["Type"]], never, never>

describe("Redis stream hub", () => {
  it.scopedLive("a stream written on A is resumed on B after any event: no gap, no duplicate", () =>
    Effect.gen(function* () {
      const [a, b] = yield* hubOf
      const thread = randomUUID()
      const writer = yield* a.open(thread)
      for (const n of [1, 2, 3]) yield* writer.publish({ n })
      // Resumed at once: B waits for what A has sent and Redis may not have yet.
      const resumed = Option.getOrThrow(yield* b.subscribe(thread, 2))
      const reading = yield* Effect.fork(collect(resumed))
      expect(yield* b.activeThreadIds).toContain(thread)
      expect(yield* b.isActive(thread)).toBe(true)
      yield* writer.publishAll([{ n: 4 }, { n: 5 }])
      yield* writer.finish
      const events = yield* Fiber.join(reading)
      expect(events.map((event) => event.id)).toEqual([3, 4, 5])
      expect(events.map((event) => event.chunk)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }])
      expect(yield* b.activeThreadIds).not.toContain(thread)
      // Finished: B serves the rest to a client that was reading it, and nothing without an id.
      const rest = yield* b.subscribe(thread, 4)
      expect((yield* collect(Option.getOrThrow(rest))).map((event) => event.id)).toEqual([5])
      expect(Option.isNone(yield* b.subscribe(thread))).toBe(true)
    }),
  )

  it.scopedLive("one run per thread across replicas: B cannot open a stream A runs", () =>
    Effect.gen(function* () {
      const [a, b] = yield* hubOf
      const thread = randomUUID()
      const writer = yield* a.open(thread)
      const refused = yield* Effect.flip(b.open(thread))
      expect(refused._tag).toBe("StreamActive")
      yield* writer.finish
      const next = yield* b.open(thread)
      yield* next.finish
    }),
  )

  it.scopedLive("a sink attached on B gets the replay, then the live events, then the end", () =>
    Effect.gen(function* () {
      const [a, b] = yield* hubOf
      const thread = randomUUID()
      const writer = yield* a.open(thread)
      yield* writer.publish("one")
      const seen: Array<number> = []
      let ended = false
      const sink: StreamHub.StreamSink = {
        onEvents: (events) => {
          for (const event of events) seen.push(event.id)
        },
        onEnd: () => {
          ended = true
        },
      }
      const attached = yield* b.attach(thread, sink, 0)
      expect(Option.isSome(attached)).toBe(true)
      yield* writer.publish("two")
      yield* writer.finish
      yield* Effect.promise(async () => {
        for (let i = 0; i < 200 && !ended; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      })
      expect(seen).toEqual([1, 2])
      expect(ended).toBe(true)
    }),
  )
})

describe("Redis rate limiter", () => {
  it.scopedLive("counts one window across replicas, exactly", () =>
    Effect.gen(function* () {
      const [a, b] = yield* replicas(RedisRateLimiter.layer)
      const limiterA = a.unsafeMap.get(RateLimiter.key) as RateLimiter["Type"]
      const limiterB = b.unsafeMap.get(RateLimiter.key) as RateLimiter["Type"]
      const limit = { limit: 5, window: Duration.minutes(1) }
      const decisions = []
      for (let i = 0; i < 6; i++) decisions.push(yield* (i % 2 === 0 ? limiterA : limiterB).consume("login:ip", limit))
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false])
      expect(decisions.map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0, 0])
      const reset = Duration.toMillis(decisions[5]!.resetAfter)
      expect(reset).toBeGreaterThan(55_000)
      expect(reset).toBeLessThanOrEqual(60_000)
    }),
  )

  it.scopedLive("peek sees the window every replica counts into, and counts nothing", () =>
    Effect.gen(function* () {
      const [a, b] = yield* replicas(RedisRateLimiter.layer)
      const limiterA = a.unsafeMap.get(RateLimiter.key) as RateLimiter["Type"]
      const limiterB = b.unsafeMap.get(RateLimiter.key) as RateLimiter["Type"]
      const limit = { limit: 2, window: Duration.minutes(1) }
      expect(yield* limiterB.peek("metrics:ip", limit)).toMatchObject({ allowed: true, remaining: 2 })
      yield* limiterA.consume("metrics:ip", limit)
      expect(yield* limiterB.peek("metrics:ip", limit)).toMatchObject({ allowed: true, remaining: 1 })
      expect(yield* limiterB.peek("metrics:ip", limit)).toMatchObject({ allowed: true, remaining: 1 })
      yield* limiterA.consume("metrics:ip", limit)
      const full = yield* limiterB.peek("metrics:ip", limit)
      expect(full).toMatchObject({ allowed: false, remaining: 0 })
      expect(Duration.toMillis(full.resetAfter)).toBeGreaterThan(55_000)
    }),
  )

  it.scopedLive("Redis unreachable: each replica counts in its own memory", () =>
    Effect.gen(function* () {
      const [a] = yield* replicas(RedisRateLimiter.layer, "redis://127.0.0.1:1")
      const limiter = a.unsafeMap.get(RateLimiter.key) as RateLimiter["Type"]
      const limit = { limit: 1, window: Duration.minutes(1) }
      expect((yield* limiter.consume("k", limit)).allowed).toBe(true)
      expect((yield* limiter.consume("k", limit)).allowed).toBe(false)
    }),
  )
})

describe("Redis replica signals", () => {
  it.scopedLive("a message published on A reaches subscribers on A and B", () =>
    Effect.gen(function* () {
      const [a, b] = yield* replicas(RedisSignals.layer)
      const signalsA = a.unsafeMap.get(ReplicaSignals.key) as ReplicaSignals["Type"]
      const signalsB = b.unsafeMap.get(ReplicaSignals.key) as ReplicaSignals["Type"]
      const onA = yield* Effect.fork(Stream.runHead(signalsA.subscribe("ch")))
      const onB = yield* Effect.fork(Stream.runHead(signalsB.subscribe("ch")))
      const other = yield* Effect.fork(Stream.runHead(signalsB.subscribe("other")))
      // The subscriber connections subscribe as they connect: publish until B hears.
      yield* signalsA
        .publish("ch", "hello")
        .pipe(
          Effect.zipRight(Effect.sleep("20 millis")),
          Effect.repeat({ until: () => onB.unsafePoll() !== null, times: 100 }),
        )
      expect(yield* Fiber.join(onB)).toEqual(Option.some("hello"))
      expect(yield* Fiber.join(onA)).toEqual(Option.some("hello"))
      expect(other.unsafePoll()).toBeNull()
    }),
  )

  it.scopedLive("Redis unreachable: a message still reaches this replica", () =>
    Effect.gen(function* () {
      const [a] = yield* replicas(RedisSignals.layer, "redis://127.0.0.1:1")
      const signals = a.unsafeMap.get(ReplicaSignals.key) as ReplicaSignals["Type"]
      const heard = yield* Effect.fork(Stream.runHead(signals.subscribe("ch")))
      yield* Effect.yieldNow()
      yield* signals.publish("ch", "local")
      expect(yield* Fiber.join(heard)).toEqual(Option.some("local"))
    }),
  )
})

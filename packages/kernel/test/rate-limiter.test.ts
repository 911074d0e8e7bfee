import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as TestClock from "effect/TestClock"
import * as RateLimiter from "../src/ratelimit/RateLimiter.js"

const loginLimit: RateLimiter.RateLimit = { limit: 3, window: Duration.minutes(1) }

/** Runs `body` with a fresh in-memory limiter. */
const withLimiter = <A, E>(body: (limiter: RateLimiter.RateLimiter["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(RateLimiter.RateLimiter, body).pipe(Effect.provide(RateLimiter.layerMemory))

const consumeTimes = (limiter: RateLimiter.RateLimiter["Type"], key: string, times: number) =>
  Effect.forEach(Array.from({ length: times }), () => limiter.consume(key, loginLimit))

describe("a key gets `limit` requests per window", () => {
  it.effect("the first `limit` requests are allowed, the ones after are blocked", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        const decisions = yield* consumeTimes(limiter, "login:10.0.0.1", 5)
        expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false, false])
        expect(decisions.every((decision) => decision.limit === 3)).toBe(true)
      }),
    ),
  )

  it.effect("remaining counts down to zero and stays there", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        const decisions = yield* consumeTimes(limiter, "login:10.0.0.1", 5)
        expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0, 0])
      }),
    ),
  )

  it.effect("resetAfter is the time left in the window", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        const first = yield* limiter.consume("login:10.0.0.1", loginLimit)
        expect(Duration.toMillis(first.resetAfter)).toBe(60_000)
        yield* TestClock.adjust("20 seconds")
        const second = yield* limiter.consume("login:10.0.0.1", loginLimit)
        expect(Duration.toMillis(second.resetAfter)).toBe(40_000)
      }),
    ),
  )
})

describe("windows reset", () => {
  it.effect("a blocked key is blocked until the window ends and allowed again from then", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        yield* consumeTimes(limiter, "login:10.0.0.1", 3)
        yield* TestClock.adjust(Duration.subtract(Duration.minutes(1), Duration.millis(1)))
        expect((yield* limiter.consume("login:10.0.0.1", loginLimit)).allowed).toBe(false)

        yield* TestClock.adjust(Duration.millis(1))
        const decisions = yield* consumeTimes(limiter, "login:10.0.0.1", 4)
        expect(decisions.map((decision) => [decision.allowed, decision.remaining])).toEqual([
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ])
      }),
    ),
  )
})

describe("keys are independent", () => {
  it.effect("blocking one key leaves another untouched", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        yield* consumeTimes(limiter, "login:10.0.0.1", 4)
        const other = yield* limiter.consume("login:10.0.0.2", loginLimit)
        expect(other).toMatchObject({ allowed: true, remaining: 2 })
        expect((yield* limiter.consume("login:10.0.0.1", loginLimit)).allowed).toBe(false)
      }),
    ),
  )

  it.effect("each key keeps its own window and limit", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        const strict: RateLimiter.RateLimit = { limit: 1, window: Duration.seconds(10) }
        yield* limiter.consume("setup:10.0.0.1", strict)
        yield* TestClock.adjust("5 seconds")
        yield* limiter.consume("login:10.0.0.1", loginLimit)
        expect((yield* limiter.consume("setup:10.0.0.1", strict)).allowed).toBe(false)
        yield* TestClock.adjust("5 seconds")
        expect((yield* limiter.consume("setup:10.0.0.1", strict)).allowed).toBe(true)
        expect(yield* limiter.consume("login:10.0.0.1", loginLimit)).toMatchObject({ allowed: true, remaining: 1 })
      }),
    ),
  )
})

describe("peek reads a window without counting", () => {
  it.effect("says whether one more request would be allowed, and counts nothing", () =>
    withLimiter((limiter) =>
      Effect.gen(function* () {
        expect(yield* limiter.peek("metrics:10.0.0.1", loginLimit)).toMatchObject({ allowed: true, remaining: 3 })
        yield* consumeTimes(limiter, "metrics:10.0.0.1", 2)
        for (let i = 0; i < 5; i++) {
          expect(yield* limiter.peek("metrics:10.0.0.1", loginLimit)).toMatchObject({ allowed: true, remaining: 1 })
        }
        yield* TestClock.adjust("20 seconds")
        yield* limiter.consume("metrics:10.0.0.1", loginLimit)
        const full = yield* limiter.peek("metrics:10.0.0.1", loginLimit)
        expect(full).toMatchObject({ allowed: false, remaining: 0 })
        expect(Duration.toMillis(full.resetAfter)).toBe(40_000)
        yield* TestClock.adjust("40 seconds")
        expect((yield* limiter.peek("metrics:10.0.0.1", loginLimit)).allowed).toBe(true)
      }),
    ),
  )
})

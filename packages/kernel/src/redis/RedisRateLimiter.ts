import { Duration, Effect, Layer } from "effect"
import { makeMemory, type RateLimit, type RateLimitDecision, RateLimiter } from "../ratelimit/RateLimiter.js"
import { RedisConnection } from "./RedisConnection.js"

/**
 * One fixed window in one round trip: the first request of a window creates the counter with
 * the window as its expiry, so every replica counts into the same window and it resets for all
 * at once. (`@effect/experimental`'s Redis store was considered: it brings its own limiter
 * interface and algorithm choice; these four lines keep ours and its headers as they are.)
 */
const script = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`

/** A window's count and time left, without counting (no key: an empty window). */
const peekScript = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}
`

/**
 * Fixed windows counted in Redis: exact across replicas. While Redis is unreachable each
 * replica counts in its own memory (the limits hold per replica), logged once.
 */
export const make = Effect.gen(function* () {
  const redis = yield* RedisConnection
  const local = yield* makeMemory
  const consume = (key: string, limit: RateLimit) => {
    const windowMillis = Math.max(1, Math.round(Duration.toMillis(limit.window)))
    return Effect.tryPromise(
      () => redis.client.eval(script, 1, `${redis.prefix}rl:${key}`, windowMillis) as Promise<[number, number]>,
    ).pipe(
      Effect.map(
        ([count, ttl]): RateLimitDecision => ({
          allowed: count <= limit.limit,
          limit: limit.limit,
          remaining: Math.max(0, limit.limit - count),
          resetAfter: Duration.millis(Math.max(0, ttl)),
        }),
      ),
      Effect.catchAll((error) => {
        redis.failed("rate limits count per replica", error.error)
        return local.consume(key, limit)
      }),
    )
  }
  const peek = (key: string, limit: RateLimit) => {
    const windowMillis = Math.max(1, Math.round(Duration.toMillis(limit.window)))
    return Effect.tryPromise(
      () => redis.client.eval(peekScript, 1, `${redis.prefix}rl:${key}`) as Promise<[number, number]>,
    ).pipe(
      Effect.map(
        ([count, ttl]): RateLimitDecision => ({
          allowed: count < limit.limit,
          limit: limit.limit,
          remaining: Math.max(0, limit.limit - count),
          resetAfter: Duration.millis(ttl < 0 ? windowMillis : ttl),
        }),
      ),
      Effect.catchAll((error) => {
        redis.failed("rate limits count per replica", error.error)
        return local.peek(key, limit)
      }),
    )
  }
  return RateLimiter.of({ consume, peek })
})

export const layer: Layer.Layer<RateLimiter, never, RedisConnection> = Layer.effect(RateLimiter, make)

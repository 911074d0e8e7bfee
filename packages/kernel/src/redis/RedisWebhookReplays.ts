import { Effect, Layer } from "effect"
import { defaultMaxEntries, makeMemory, type ReplayEntry, WebhookReplays } from "../channels/gateway/WebhookReplays.js"
import { RedisConnection } from "./RedisConnection.js"

/**
 * One sorted set per channel (member: the signature, score: its window's end), decided in one
 * round trip: expired members go, the signature is added only if absent (NX: of concurrent
 * callers on any replica exactly one adds it), the set is trimmed to `max` keeping the members
 * ending last, and the key expires with its last window. A plain `SET NX PX` per signature would
 * expire as well but leave a flood of validly signed requests unbounded within the window.
 */
const rememberScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
local count = redis.call('ZCARD', KEYS[1])
local max = tonumber(ARGV[4])
if count > max then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - max - 1) end
local ttl = (tonumber(ARGV[2]) - tonumber(ARGV[3]) + 1) * 1000
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`

export interface RedisWebhookReplaysOptions {
  /** Signatures kept per channel (the ones ending last); default 10,000. */
  readonly maxEntries?: number
}

/**
 * `WebhookReplays` in Redis, shared by every replica. While Redis is unreachable each replica
 * remembers in its own memory (a replay to another replica passes then), logged once, like the
 * rate limits: webhooks keep working through an outage.
 */
export const make = (options: RedisWebhookReplaysOptions = {}) =>
  Effect.gen(function* () {
    const redis = yield* RedisConnection
    const max = Math.max(1, options.maxEntries ?? defaultMaxEntries)
    const local = yield* makeMemory(max)
    const keyOf = (channel: string) => `${redis.prefix}webhook-replays:${channel}`
    const fallback = (error: unknown) => redis.failed("webhook replays are remembered per replica", error)

    const remember = (entry: ReplayEntry, nowSeconds: number) =>
      Effect.tryPromise(
        () =>
          redis.client.eval(
            rememberScript,
            1,
            keyOf(entry.channel),
            entry.signature,
            entry.until,
            nowSeconds,
            max,
          ) as Promise<number>,
      ).pipe(
        Effect.map((added) => added === 1),
        Effect.catchAll((error) => {
          fallback(error.error)
          return local.remember(entry, nowSeconds)
        }),
      )

    const forget = (channel: string, signature: string) =>
      Effect.tryPromise(() => redis.client.zrem(keyOf(channel), signature)).pipe(
        Effect.asVoid,
        Effect.catchAll((error) => {
          fallback(error.error)
          return local.forget(channel, signature)
        }),
      )

    return WebhookReplays.of({ remember, forget })
  })

export const layerWith = (options: RedisWebhookReplaysOptions): Layer.Layer<WebhookReplays, never, RedisConnection> =>
  Layer.effect(WebhookReplays, make(options))

export const layer: Layer.Layer<WebhookReplays, never, RedisConnection> = layerWith({})

import type { Kernel, StreamHub } from "@aide/kernel"
import { Duration, Effect, Layer, Option } from "effect"
import type { ServerConfig } from "./ServerConfig.js"

/**
 * With `REDIS_URL`: live streams, rate limits, webhook replays and replica signals in Redis, on
 * one connection. Loaded only then, like PostgreSQL, so other servers never load the Redis client.
 * Webhook replays go to Redis even with `DATABASE_URL` (where they would be shared too): keys
 * expire by themselves, and no webhook writes to the database for them. A stream's lease is
 * `AIDE_LEASE_TTL`, as thread claims: a killed replica's threads are free, and their streams end
 * on the other replicas, at the same time.
 */
export const redisMechanisms = (
  options: Pick<ServerConfig, "redisUrl" | "redisKeyPrefix" | "leaseTtlSeconds">,
  hub: StreamHub.StreamHubOptions,
) =>
  Effect.gen(function* () {
    const url = options.redisUrl
    if (url === undefined || Option.isNone(url)) return {}
    const redis = yield* Effect.promise(() => import("@aide/kernel/redis"))
    const connection = redis.RedisConnection.layer({ url: url.value, keyPrefix: options.redisKeyPrefix ?? "aide:" })
    return {
      streamHub: redis.RedisStreamHub.layer(
        options.leaseTtlSeconds === undefined ? hub : { ...hub, lease: Duration.seconds(options.leaseTtlSeconds) },
      ).pipe(Layer.provide(connection)),
      rateLimiter: redis.RedisRateLimiter.layer.pipe(Layer.provide(connection)),
      replicaSignals: redis.RedisSignals.layer.pipe(Layer.provide(connection)),
      webhookReplays: redis.RedisWebhookReplays.layer.pipe(Layer.provide(connection)),
    } satisfies Partial<Kernel.KernelOptions>
  })

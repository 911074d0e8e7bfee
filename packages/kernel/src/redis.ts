/**
 * @aide/kernel/redis — the Redis Layers of scale-out (live chat streams, rate limits, webhook replays and
 * signals shared by the replicas), a separate entry so that servers without Redis never load
 * its client.
 */
export * as RedisConnection from "./redis/RedisConnection.js"
export * as RedisRateLimiter from "./redis/RedisRateLimiter.js"
export * as RedisSignals from "./redis/RedisSignals.js"
export * as RedisStreamHub from "./redis/RedisStreamHub.js"
export * as RedisWebhookReplays from "./redis/RedisWebhookReplays.js"

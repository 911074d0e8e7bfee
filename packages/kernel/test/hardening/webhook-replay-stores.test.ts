import { randomUUID } from "node:crypto"
import {
  freshPostgresStorage,
  postgresAvailable,
  tempSqliteStorage,
  webhookReplaysContract,
} from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as SqlWebhookReplays from "../../src/channels/gateway/SqlWebhookReplays.js"
import * as WebhookReplays from "../../src/channels/gateway/WebhookReplays.js"
import * as RedisConnection from "../../src/redis/RedisConnection.js"
import * as RedisWebhookReplays from "../../src/redis/RedisWebhookReplays.js"

/**
 * Issue 32, item 10: webhook replay protection was one process's memory. The store Tag keeps it
 * where the replicas share it (PostgreSQL, Redis) and across restarts (SQLite), each store bounded
 * per channel: the contract on every implementation, then each store's own bound.
 */
const redisUrl = process.env.AIDE_TEST_REDIS_URL
const now = 1_900_000_000
const entry = (signature: string, until = now + 300, channel = "tg:bot") => ({ channel, signature, until })

const boundedSql = SqlWebhookReplays.layerWith({ maxEntries: 3, pruneEvery: 1 })
webhookReplaysContract(
  "WebhookReplays.layerMemory",
  WebhookReplays.layerMemory,
  WebhookReplays.layerMemoryWith({ maxEntries: 3 }),
)
webhookReplaysContract(
  "SqlWebhookReplays (SQLite)",
  Layer.provide(SqlWebhookReplays.layer, tempSqliteStorage),
  Layer.provide(boundedSql, tempSqliteStorage),
)
describe.skipIf(!postgresAvailable)("on PostgreSQL", () => {
  webhookReplaysContract(
    "SqlWebhookReplays (PostgreSQL)",
    Layer.provide(SqlWebhookReplays.layer, freshPostgresStorage),
    Layer.provide(boundedSql, freshPostgresStorage),
  )
})

// A fresh key prefix per built Layer: the contract's tests never see each other's keys.
const redisStore = (options: RedisWebhookReplays.RedisWebhookReplaysOptions) =>
  Layer.unwrapEffect(
    Effect.sync(() =>
      Layer.provideMerge(
        RedisWebhookReplays.layerWith(options),
        RedisConnection.layer({ url: Redacted.make(redisUrl ?? ""), keyPrefix: `aide-test:${randomUUID()}:` }),
      ),
    ),
  )
it.scopedLive("Redis unreachable: each replica remembers in its own memory", () =>
  Effect.gen(function* () {
    const connection = RedisConnection.layer({ url: Redacted.make("redis://127.0.0.1:1"), keyPrefix: "unused:" })
    const context = yield* Layer.build(RedisWebhookReplays.layer.pipe(Layer.provide(connection)))
    const replays = context.unsafeMap.get(WebhookReplays.WebhookReplays.key) as WebhookReplays.WebhookReplays["Type"]
    expect(yield* replays.remember(entry("offline"), now)).toBe(true)
    expect(yield* replays.remember(entry("offline"), now)).toBe(false)
  }),
)

describe.skipIf(redisUrl === undefined)("on Redis", () => {
  webhookReplaysContract("RedisWebhookReplays", redisStore({}), redisStore({ maxEntries: 3 }))

  it.scopedLive("a flood of validly signed requests keeps the channel's set within the bound, expiring", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(redisStore({ maxEntries: 3 }))
      const replays = context.unsafeMap.get(WebhookReplays.WebhookReplays.key) as WebhookReplays.WebhookReplays["Type"]
      const redis = context.unsafeMap.get(
        RedisConnection.RedisConnection.key,
      ) as RedisConnection.RedisConnection["Type"]
      for (let index = 0; index < 50; index++) yield* replays.remember(entry(`flood-${index}`), now)
      const key = `${redis.prefix}webhook-replays:tg:bot`
      expect(yield* Effect.promise(() => redis.client.zcard(key))).toBe(3)
      const ttl = yield* Effect.promise(() => redis.client.pttl(key))
      expect(ttl).toBeGreaterThan(290_000)
      expect(ttl).toBeLessThanOrEqual(301_000)
    }),
  )
})

const rows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM webhook_replays`,
).pipe(Effect.map((result) => Number(result[0]?.n)))

describe("SqlWebhookReplays keeps its table bounded", () => {
  const onSqlite = <A, E>(
    store: Layer.Layer<WebhookReplays.WebhookReplays, unknown, SqlClient.SqlClient>,
    body: (replays: WebhookReplays.WebhookReplays["Type"]) => Effect.Effect<A, E, SqlClient.SqlClient>,
  ) =>
    Effect.flatMap(WebhookReplays.WebhookReplays, body).pipe(
      Effect.provide(Layer.provideMerge(store, tempSqliteStorage)),
    )

  it.effect("a flood of distinct valid signatures leaves at most maxEntries rows per channel", () =>
    onSqlite(boundedSql, (replays) =>
      Effect.gen(function* () {
        for (let index = 0; index < 50; index++) yield* replays.remember(entry(`flood-${index}`), now)
        yield* replays.remember(entry("other", now + 300, "tg:other"), now)
        expect(yield* rows).toBe(4)
      }),
    ),
  )

  it.effect("expired rows are deleted by the next clean-up, every pruneEvery-th accepted signature", () =>
    onSqlite(SqlWebhookReplays.layerWith({ pruneEvery: 2 }), (replays) =>
      Effect.gen(function* () {
        yield* replays.remember(entry("a", now + 10), now)
        yield* replays.remember(entry("b", now + 10, "tg:other"), now)
        expect(yield* rows).toBe(2)
        // The third accepted one cleans up: a and b ended.
        yield* replays.remember(entry("c", now + 100), now + 50)
        expect(yield* rows).toBe(1)
      }),
    ),
  )
})

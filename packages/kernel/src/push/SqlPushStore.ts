import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../storage/StorageError.js"
import { type AddResult, PushStore, type VapidKeys } from "./PushStore.js"
import { schema } from "./pushSchema.js"

interface SubscriptionRow {
  readonly endpoint: string
  readonly p256dh: string
  readonly auth: string
  readonly createdAt: string
}

/** `PushStore` over any `SqlClient` dialect (SQLite, PostgreSQL). */
export const make: Effect.Effect<PushStore["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const vapidKeys = (candidate: VapidKeys) =>
    Effect.gen(function* () {
      const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      // Inserted only if absent: of replicas starting together, the first pair wins for all.
      yield* sql`INSERT INTO push_vapid (id, public_key, private_key, created_at)
        VALUES (1, ${candidate.publicKey}, ${candidate.privateKey}, ${createdAt})
        ON CONFLICT (id) DO NOTHING`
      const rows = yield* sql<{
        readonly publicKey: string
        readonly privateKey: string
      }>`SELECT public_key AS "publicKey", private_key AS "privateKey" FROM push_vapid WHERE id = 1`
      const row = rows[0]
      return row === undefined ? candidate : { publicKey: row.publicKey, privateKey: row.privateKey }
    }).pipe(orStorageError("read the VAPID keys"))

  const add = (subscription: Parameters<PushStore["Type"]["add"]>[0], cap: number) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const updated = yield* sql<{ readonly endpoint: string }>`UPDATE push_subscriptions
            SET p256dh = ${subscription.p256dh}, auth = ${subscription.auth}
            WHERE endpoint = ${subscription.endpoint} RETURNING endpoint`
          if (updated.length > 0) return "updated" as AddResult
          const count = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM push_subscriptions`
          if (Number(count[0]?.n ?? 0) >= cap) return "full" as AddResult
          yield* sql`INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at)
            VALUES (${subscription.endpoint}, ${subscription.p256dh}, ${subscription.auth},
              ${subscription.createdAt.toISOString()})`
          return "added" as AddResult
        }),
      )
      .pipe(orStorageError("save a push subscription"))

  const remove = (endpoint: string) =>
    sql<{ readonly endpoint: string }>`DELETE FROM push_subscriptions WHERE endpoint = ${endpoint}
      RETURNING endpoint`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStorageError("remove a push subscription"),
    )

  const list = sql<SubscriptionRow>`SELECT endpoint, p256dh, auth, created_at AS "createdAt"
    FROM push_subscriptions ORDER BY created_at, endpoint`.pipe(
    Effect.map((rows) => rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt) }))),
    orStorageError("list push subscriptions"),
  )

  return PushStore.of({ vapidKeys, add, remove, list })
})

/** `PushStore` on the kernel's `SqlClient` (tables of migration `0020_web_push`). */
export const layer: Layer.Layer<PushStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  PushStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

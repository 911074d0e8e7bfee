import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as SqlMigrations from "../../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../../storage/StorageError.js"
import { defaultMaxEntries, type ReplayEntry, WebhookReplays } from "./WebhookReplays.js"
import { schema } from "./webhookReplaysSchema.js"

export interface SqlWebhookReplaysOptions {
  /** Signatures kept per channel (the ones ending last); default 10,000. */
  readonly maxEntries?: number
  /** Accepted signatures between two clean-ups, per process; default 100. */
  readonly pruneEvery?: number
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/**
 * `WebhookReplays` over any `SqlClient` dialect (table `webhook_replays`): shared by every replica
 * on one PostgreSQL database, kept across restarts on SQLite. One statement per accepted webhook;
 * every `pruneEvery`-th of a process also deletes the expired rows and trims the channel to
 * `maxEntries`, so the table holds at most about `maxEntries + pruneEvery × replicas` rows per channel.
 */
export const make = (options: SqlWebhookReplaysOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const maxEntries = Math.max(1, options.maxEntries ?? defaultMaxEntries)
    const pruneEvery = Math.max(1, options.pruneEvery ?? 100)
    let accepted = 0

    const prune = (channel: string, now: string) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM webhook_replays WHERE expires_at < ${now}`
        // Everything past the channel's `maxEntries` ending last (ties broken by signature, so a
        // flood of one timestamp is trimmed too).
        const past = sql.onDialectOrElse({
          pg: () => sql`OFFSET ${maxEntries}`,
          orElse: () => sql`LIMIT -1 OFFSET ${maxEntries}`,
        })
        yield* sql`DELETE FROM webhook_replays WHERE channel = ${channel} AND signature IN (
          SELECT signature FROM webhook_replays WHERE channel = ${channel}
          ORDER BY expires_at DESC, signature DESC ${past})`
      }).pipe(
        orStorageError("pruning webhook replays"),
        // The signature is already remembered: a failed clean-up waits for the next one.
        Effect.catchAll((error) => Effect.logWarning("channels: webhook replay clean-up failed", error)),
      )

    // One conditional statement decides each race: a row is returned when the signature was
    // inserted, or when its remembered window had ended; a live row (another replica's
    // concurrent insert included) returns none.
    const remember = (entry: ReplayEntry, nowSeconds: number) =>
      Effect.gen(function* () {
        const now = iso(nowSeconds)
        const rows = yield* sql`
          INSERT INTO webhook_replays (channel, signature, expires_at)
          VALUES (${entry.channel}, ${entry.signature}, ${iso(entry.until)})
          ON CONFLICT (channel, signature) DO UPDATE SET expires_at = excluded.expires_at
          WHERE webhook_replays.expires_at < ${now}
          RETURNING signature`.pipe(orStorageError("remembering a webhook signature"))
        if (rows.length === 0) return false
        if (accepted++ % pruneEvery === 0) yield* prune(entry.channel, now)
        return true
      }).pipe(Effect.withSpan("WebhookReplays.remember"))

    const forget = (channel: string, signature: string) =>
      sql`DELETE FROM webhook_replays WHERE channel = ${channel} AND signature = ${signature}`.pipe(
        Effect.asVoid,
        orStorageError("forgetting a webhook signature"),
      )

    return WebhookReplays.of({ remember, forget })
  })

/** `WebhookReplays` on a `SqlClient`, migrated first if it is not yet. */
export const layerWith = (
  options: SqlWebhookReplaysOptions,
): Layer.Layer<WebhookReplays, StorageError, SqlClient.SqlClient> =>
  Layer.effect(WebhookReplays, Effect.zipRight(SqlMigrations.ensure(schema), make(options)))

export const layer: Layer.Layer<WebhookReplays, StorageError, SqlClient.SqlClient> = layerWith({})

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../../storage/SqlMigrations.js"

/**
 * `webhook_replays`: the webhook signatures accepted per channel, each until its window ends
 * (ISO 8601 text, comparable as text). The index serves the per-channel bound, which keeps the
 * rows ending last.
 */
const webhookReplaysTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhook_replays (
    channel TEXT NOT NULL,
    signature TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (channel, signature)
  )`
  yield* sql`CREATE INDEX webhook_replays_channel_expires_at ON webhook_replays (channel, expires_at)`
})

/** The table of `SqlWebhookReplays`, numbered in the kernel's one sequence (after release 0.1's ids). */
export const schema: Schema = {
  name: "aide.webhook_replays",
  migrations: [{ id: 16, name: "webhook_replays", up: webhookReplaysTable }],
}

import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../../storage/SqlMigrations.js"

/**
 * Channel conversations. `channel_conversations`: the Aide thread of each (plugin, channel,
 * platform conversation); no foreign key to `threads`, so a thread the owner deletes leaves
 * the row behind and the gateway starts a new thread the next time. `channel_approvals`: the
 * opaque approval ids handed to channels, each naming one tool call of one run, so an answer
 * works after a restart.
 */
export const channelConversationTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE channel_conversations (
    plugin_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (plugin_id, channel_id, conversation_id)
  )`
  yield* sql`CREATE TABLE channel_approvals (
    id TEXT PRIMARY KEY,
    plugin_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
})

/**
 * Owner-only access. `channel_pairings`: unknown senders' requests waiting for the owner (one per
 * sender and channel, codes unique per plugin). `channel_senders`: the senders the owner approved,
 * consulted beside the plugin's `allowFrom`.
 */
export const channelAccessTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE channel_pairings (
    plugin_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    code TEXT NOT NULL,
    sender_id TEXT NOT NULL,
    sender_name TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (plugin_id, code),
    UNIQUE (plugin_id, channel_id, sender_id)
  )`
  yield* sql`CREATE TABLE channel_senders (
    plugin_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    sender_id TEXT NOT NULL,
    sender_name TEXT,
    approved_at TEXT NOT NULL,
    PRIMARY KEY (plugin_id, channel_id, sender_id)
  )`
})

/** The tables of `SqlChannelConversations`. */
export const schema: Schema = {
  name: "aide.channel_conversations",
  migrations: [
    { id: 15, name: "channel_conversations", up: channelConversationTables, legacyId: 15 },
    { id: 17, name: "channel_access", up: channelAccessTables },
  ],
}

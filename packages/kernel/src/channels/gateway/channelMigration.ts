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

/** The tables of `SqlChannelConversations`. */
export const schema: Schema = {
  name: "aide.channel_conversations",
  migrations: [{ id: 15, name: "channel_conversations", up: channelConversationTables, legacyId: 15 }],
}

import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as SqlMigrations from "../../storage/SqlMigrations.js"
import { orStorageError, type StorageError } from "../../storage/StorageError.js"
import { type ChannelApproval, ChannelConversations, type ConversationRef } from "./ChannelConversations.js"
import { schema } from "./channelMigration.js"
import * as SqlChannelAccess from "./SqlChannelAccess.js"

interface ApprovalRow {
  readonly id: string
  readonly pluginId: string
  readonly channelId: string
  readonly conversationId: string
  readonly threadId: string
  readonly runId: string
  readonly toolCallId: string
}

/**
 * `ChannelConversations` over any `SqlClient` dialect (tables `channel_conversations`,
 * `channel_approvals`, and `channel_pairings` / `channel_senders` in SqlChannelAccess.ts).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const where = (ref: ConversationRef) =>
    sql`plugin_id = ${ref.pluginId} AND channel_id = ${ref.channelId} AND conversation_id = ${ref.conversationId}`

  const threadOf = (ref: ConversationRef) =>
    sql<{ readonly threadId: string }>`
      SELECT thread_id AS "threadId" FROM channel_conversations WHERE ${where(ref)}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.threadId)),
      orStorageError("reading a channel conversation"),
    )

  // One conditional statement decides each race: the insert of a first binding (the loser's
  // does nothing) or the swap away from a deleted thread (only from the thread seen).
  const bind = (ref: ConversationRef, threadId: string, replacing: string | null, at: Date) =>
    (replacing === null
      ? sql`INSERT INTO channel_conversations (plugin_id, channel_id, conversation_id, thread_id, updated_at)
            VALUES (${ref.pluginId}, ${ref.channelId}, ${ref.conversationId}, ${threadId}, ${at.toISOString()})
            ON CONFLICT (plugin_id, channel_id, conversation_id) DO NOTHING`
      : sql`UPDATE channel_conversations SET thread_id = ${threadId}, updated_at = ${at.toISOString()}
            WHERE ${where(ref)} AND thread_id = ${replacing}`
    ).pipe(
      Effect.zipRight(threadOf(ref)),
      Effect.map(Option.getOrElse(() => threadId)),
      orStorageError("binding a channel conversation"),
    )

  const saveApprovals = (approvals: ReadonlyArray<ChannelApproval>, at: Date) =>
    approvals.length === 0
      ? Effect.void
      : sql`INSERT INTO channel_approvals ${sql.insert(
          approvals.map((approval) => ({
            id: approval.approvalId,
            plugin_id: approval.conversation.pluginId,
            channel_id: approval.conversation.channelId,
            conversation_id: approval.conversation.conversationId,
            thread_id: approval.threadId,
            run_id: approval.runId,
            tool_call_id: approval.toolCallId,
            created_at: at.toISOString(),
          })),
        )}`.pipe(Effect.asVoid, orStorageError("saving channel approvals"))

  const approval = (id: string) =>
    sql<ApprovalRow>`
      SELECT id, plugin_id AS "pluginId", channel_id AS "channelId", conversation_id AS "conversationId",
        thread_id AS "threadId", run_id AS "runId", tool_call_id AS "toolCallId"
      FROM channel_approvals WHERE id = ${id}`.pipe(
      Effect.map((rows) =>
        Option.map(
          Option.fromNullable(rows[0]),
          (row): ChannelApproval => ({
            approvalId: row.id,
            conversation: { pluginId: row.pluginId, channelId: row.channelId, conversationId: row.conversationId },
            threadId: row.threadId,
            runId: row.runId,
            toolCallId: row.toolCallId,
          }),
        ),
      ),
      orStorageError("reading a channel approval"),
    )

  return ChannelConversations.of({ threadOf, bind, saveApprovals, approval, ...(yield* SqlChannelAccess.make) })
})

/** `ChannelConversations` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<ChannelConversations, StorageError, SqlClient.SqlClient> = Layer.effect(
  ChannelConversations,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)

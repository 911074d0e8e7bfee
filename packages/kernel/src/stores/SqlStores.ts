import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { AuthStore } from "../auth/AuthStore.js"
import { schema as authSchema } from "../auth/authSchema.js"
import * as SqlAuthStore from "../auth/SqlAuthStore.js"
import type { ChannelConversations } from "../channels/gateway/ChannelConversations.js"
import { schema as channelSchema } from "../channels/gateway/channelMigration.js"
import * as SqlChannelConversations from "../channels/gateway/SqlChannelConversations.js"
import * as SqlWebhookReplays from "../channels/gateway/SqlWebhookReplays.js"
import type { WebhookReplays } from "../channels/gateway/WebhookReplays.js"
import { schema as webhookReplaysSchema } from "../channels/gateway/webhookReplaysSchema.js"
import type { ChatRuns } from "../chat/ChatRuns.js"
import { schema as chatRunsSchema } from "../chat/chatRunsSchema.js"
import * as SqlChatRuns from "../chat/SqlChatRuns.js"
import type { ConfigStore } from "../config/ConfigStore.js"
import { schema as configSchema } from "../config/configSchema.js"
import * as SqlConfigStore from "../config/SqlConfigStore.js"
import type { Ids } from "../ids/Ids.js"
import type { InboxStore } from "../inbox/InboxStore.js"
import { schema as inboxSchema } from "../inbox/inboxSchema.js"
import * as SqlInboxStore from "../inbox/SqlInboxStore.js"
import type { McpOAuthStore } from "../mcp/McpOAuthStore.js"
import { schema as mcpOAuthSchema } from "../mcp/mcpOAuthSchema.js"
import * as SqlMcpOAuthStore from "../mcp/SqlMcpOAuthStore.js"
import type { MemoryStore } from "../memory/MemoryStore.js"
import { schema as memorySchema } from "../memory/memorySchema.js"
import type { ObservationStore } from "../memory/observational/ObservationStore.js"
import { schema as observationSchema } from "../memory/observational/observationSchema.js"
import * as SqlObservationStore from "../memory/observational/SqlObservationStore.js"
import { schema as recallSchema } from "../memory/recall/internal/recallSchema.js"
import type { RecallIndex } from "../memory/recall/RecallIndex.js"
import * as SqlRecallIndex from "../memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../memory/SqlMemoryStore.js"
import type { RunLedger } from "../scheduler/RunLedger.js"
import { schema as runLedgerSchema } from "../scheduler/runLedgerSchema.js"
import * as SqlRunLedger from "../scheduler/SqlRunLedger.js"
import * as SqlMigrations from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"
import * as SqlThreads from "../threads/SqlThreads.js"
import type { Threads } from "../threads/Threads.js"
import { schema as threadsSchema } from "../threads/threadsSchema.js"

/** Every store the kernel's services keep their data in. */
export type Stores =
  | AuthStore
  | ConfigStore
  | Threads
  | ChatRuns
  | InboxStore
  | McpOAuthStore
  | RunLedger
  | MemoryStore
  | ObservationStore
  | RecallIndex
  | ChannelConversations
  | WebhookReplays

/**
 * Each store's SQL Layer, by the name of its `Kernel.layer` option: the one list of the SQL
 * stores (`Kernel.layer` takes its defaults from here).
 */
export const layers = {
  authStore: SqlAuthStore.layer,
  configStore: SqlConfigStore.layer,
  threads: SqlThreads.layer,
  chatRuns: SqlChatRuns.layer,
  inboxStore: SqlInboxStore.layer,
  mcpOAuthStore: SqlMcpOAuthStore.layer,
  runLedger: SqlRunLedger.layer,
  memoryStore: SqlMemoryStore.layer,
  observationStore: SqlObservationStore.layer,
  recallIndex: SqlRecallIndex.layer,
  channelConversations: SqlChannelConversations.layer,
  webhookReplays: SqlWebhookReplays.layer,
} as const

/** The schema of each SQL store, in the order a fresh database gets them (required ones first anyway). */
export const schemas: ReadonlyArray<SqlMigrations.Schema> = [
  authSchema,
  configSchema,
  threadsSchema,
  inboxSchema,
  chatRunsSchema,
  runLedgerSchema,
  mcpOAuthSchema,
  memorySchema,
  observationSchema,
  recallSchema,
  channelSchema,
  webhookReplaysSchema,
]

/** Brings the schema of every SQL store up to date (each store also does so for its own when built). */
export const ensureMigrated: Effect.Effect<void, StorageError, SqlClient.SqlClient> = Effect.forEach(
  schemas,
  SqlMigrations.ensure,
  { discard: true },
)

/** `ensureMigrated` as a Layer: put it over a connection to get one with every store's tables. */
export const migrated: Layer.Layer<never, StorageError, SqlClient.SqlClient> = Layer.effectDiscard(ensureMigrated)

/**
 * Every store on one `SqlClient` (SQLite or PostgreSQL), each migrating its own schema first:
 * give it a connection (`SqliteStorage`, `PostgresStorage` or your own pool) and it provides the
 * stores. Each `Sql*.layer` also works alone.
 */
export const layer: Layer.Layer<Stores, StorageError, SqlClient.SqlClient | Ids> = Layer.mergeAll(
  layers.authStore,
  layers.configStore,
  layers.threads,
  layers.chatRuns,
  layers.inboxStore,
  layers.mcpOAuthStore,
  layers.runLedger,
  layers.memoryStore,
  layers.observationStore,
  layers.recallIndex,
  layers.channelConversations,
  layers.webhookReplays,
)

import * as AuthStore from "../auth/AuthStore.js"
import { schema as authSchema } from "../auth/authSchema.js"
import * as MemoryAuthStore from "../auth/MemoryAuthStore.js"
import * as SqlAuthStore from "../auth/SqlAuthStore.js"
import * as ChannelConversations from "../channels/gateway/ChannelConversations.js"
import { schema as channelSchema } from "../channels/gateway/channelMigration.js"
import * as SqlChannelConversations from "../channels/gateway/SqlChannelConversations.js"
import * as SqlWebhookReplays from "../channels/gateway/SqlWebhookReplays.js"
import * as WebhookReplays from "../channels/gateway/WebhookReplays.js"
import { schema as webhookReplaysSchema } from "../channels/gateway/webhookReplaysSchema.js"
import * as ChatRuns from "../chat/ChatRuns.js"
import { schema as chatRunsSchema } from "../chat/chatRunsSchema.js"
import * as MemoryChatRuns from "../chat/MemoryChatRuns.js"
import * as SqlChatRuns from "../chat/SqlChatRuns.js"
import * as ConfigStore from "../config/ConfigStore.js"
import { schema as configSchema } from "../config/configSchema.js"
import * as SqlConfigStore from "../config/SqlConfigStore.js"
import * as InboxStore from "../inbox/InboxStore.js"
import { schema as inboxSchema } from "../inbox/inboxSchema.js"
import * as MemoryInboxStore from "../inbox/MemoryInboxStore.js"
import * as SqlInboxStore from "../inbox/SqlInboxStore.js"
import * as McpOAuthStore from "../mcp/McpOAuthStore.js"
import * as MemoryMcpOAuthStore from "../mcp/MemoryMcpOAuthStore.js"
import { schema as mcpOAuthSchema } from "../mcp/mcpOAuthSchema.js"
import * as SqlMcpOAuthStore from "../mcp/SqlMcpOAuthStore.js"
import * as McpGrantStore from "../mcpserver/McpGrantStore.js"
import * as McpSessionStore from "../mcpserver/McpSessionStore.js"
import * as MemoryMcpGrantStore from "../mcpserver/MemoryMcpGrantStore.js"
import { schema as mcpGrantSchema } from "../mcpserver/mcpGrantSchema.js"
import { schema as mcpSessionSchema } from "../mcpserver/mcpSessionSchema.js"
import * as SqlMcpGrantStore from "../mcpserver/SqlMcpGrantStore.js"
import * as SqlMcpSessionStore from "../mcpserver/SqlMcpSessionStore.js"
import * as MemoryStore from "../memory/MemoryStore.js"
import * as MemoryWorkingStore from "../memory/MemoryWorkingStore.js"
import { schema as memorySchema } from "../memory/memorySchema.js"
import * as MemoryObservationStore from "../memory/observational/MemoryObservationStore.js"
import * as ObservationStore from "../memory/observational/ObservationStore.js"
import { schema as observationSchema } from "../memory/observational/observationSchema.js"
import * as SqlObservationStore from "../memory/observational/SqlObservationStore.js"
import { schema as recallSchema } from "../memory/recall/internal/recallSchema.js"
import * as RecallIndex from "../memory/recall/RecallIndex.js"
import * as SqlRecallIndex from "../memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../memory/SqlMemoryStore.js"
import * as ConnectionStore from "../models/connections/ConnectionStore.js"
import { schema as connectionSchema } from "../models/connections/connectionSchema.js"
import * as MemoryConnectionStore from "../models/connections/MemoryConnectionStore.js"
import * as SqlConnectionStore from "../models/connections/SqlConnectionStore.js"
import * as MemoryPushStore from "../push/MemoryPushStore.js"
import * as PushStore from "../push/PushStore.js"
import { schema as pushSchema } from "../push/pushSchema.js"
import * as SqlPushStore from "../push/SqlPushStore.js"
import * as MemoryRunLedger from "../scheduler/MemoryRunLedger.js"
import * as RunLedger from "../scheduler/RunLedger.js"
import { schema as runLedgerSchema } from "../scheduler/runLedgerSchema.js"
import * as SqlRunLedger from "../scheduler/SqlRunLedger.js"
import * as MemoryThreads from "../threads/MemoryThreads.js"
import * as SqlThreads from "../threads/SqlThreads.js"
import * as Threads from "../threads/Threads.js"
import { schema as threadsSchema } from "../threads/threadsSchema.js"
import * as StoreSet from "./StoreSet.js"

/**
 * The one list of the kernel's stores: for each, the name of its `Kernel.layer` option, its Tag,
 * its SQL Layer and schema, and its in-memory Layer. `SqlStores`, `MemoryStores`, the kernel's
 * store options and the `Stores` type are all derived from it: a new store is one `add` here
 * (and one contract suite in `store-contracts.test.ts`, which fails to compile without it).
 * The order is the one a fresh database gets the schemas in.
 */
export const catalog = StoreSet.empty
  // Users, sessions and refresh tokens.
  .add("authStore", {
    tag: AuthStore.AuthStore,
    sql: SqlAuthStore.layer,
    memory: MemoryAuthStore.layer,
    schema: authSchema,
  })
  // The config document.
  .add("configStore", {
    tag: ConfigStore.ConfigStore,
    sql: SqlConfigStore.layer,
    memory: ConfigStore.layerMemory,
    schema: configSchema,
  })
  // Threads and their messages. Replacing them needs `recallIndex` too (the SQL index reads `messages`).
  .add("threads", { tag: Threads.Threads, sql: SqlThreads.layer, memory: MemoryThreads.layer, schema: threadsSchema })
  // Inbox messages and delivery leases.
  .add("inboxStore", {
    tag: InboxStore.InboxStore,
    sql: SqlInboxStore.layer,
    memory: MemoryInboxStore.layer,
    schema: inboxSchema,
  })
  // Suspended runs and their approvals.
  .add("chatRuns", {
    tag: ChatRuns.ChatRuns,
    sql: SqlChatRuns.layer,
    memory: MemoryChatRuns.layer,
    schema: chatRunsSchema,
  })
  // The scheduler's run ledger and per-task state.
  .add("runLedger", {
    tag: RunLedger.RunLedger,
    sql: SqlRunLedger.layer,
    memory: MemoryRunLedger.layer,
    schema: runLedgerSchema,
  })
  // MCP OAuth registrations, tokens and states.
  .add("mcpOAuthStore", {
    tag: McpOAuthStore.McpOAuthStore,
    sql: SqlMcpOAuthStore.layer,
    memory: MemoryMcpOAuthStore.layer,
    schema: mcpOAuthSchema,
  })
  // Working memory.
  .add("memoryStore", {
    tag: MemoryStore.MemoryStore,
    sql: SqlMemoryStore.layer,
    memory: MemoryWorkingStore.layer,
    schema: memorySchema,
  })
  // Observational memory (records, observations, reflections).
  .add("observationStore", {
    tag: ObservationStore.ObservationStore,
    sql: SqlObservationStore.layer,
    memory: MemoryObservationStore.layer,
    schema: observationSchema,
  })
  // Semantic recall's index over the stored messages: the SQL one goes with the SQL threads (kept
  // in sync with `messages` by triggers); in memory, `RecallIndex.layerEmpty` (it finds nothing).
  .add("recallIndex", {
    tag: RecallIndex.RecallIndex,
    sql: SqlRecallIndex.layer,
    memory: RecallIndex.layerEmpty,
    schema: recallSchema,
  })
  // Channel conversations' threads and the approval ids handed to channels.
  .add("channelConversations", {
    tag: ChannelConversations.ChannelConversations,
    sql: SqlChannelConversations.layer,
    memory: ChannelConversations.layerMemory,
    schema: channelSchema,
  })
  // Webhook signatures already accepted, until their windows end (shared by replicas on one
  // PostgreSQL database, kept across restarts on SQLite), or `RedisWebhookReplays.layer`.
  .add("webhookReplays", {
    tag: WebhookReplays.WebhookReplays,
    sql: SqlWebhookReplays.layer,
    memory: WebhookReplays.layerMemory,
    schema: webhookReplaysSchema,
  })
  // The sessions of Aide's own MCP endpoint `/mcp` (shared by replicas on one PostgreSQL database).
  .add("mcpSessionStore", {
    tag: McpSessionStore.McpSessionStore,
    sql: SqlMcpSessionStore.layer,
    memory: McpSessionStore.layerMemory,
    schema: mcpSessionSchema,
  })
  // `/mcp`'s OAuth clients, codes, grants and tokens (docs/mcp-server.md "OAuth").
  .add("mcpGrantStore", {
    tag: McpGrantStore.McpGrantStore,
    sql: SqlMcpGrantStore.layer,
    memory: MemoryMcpGrantStore.layer,
    schema: mcpGrantSchema,
  })
  // The owner's provider connections, sealed (`ProviderConnections`).
  .add("connectionStore", {
    tag: ConnectionStore.ConnectionStore,
    sql: SqlConnectionStore.layer,
    memory: MemoryConnectionStore.layer,
    schema: connectionSchema,
  })
  // Web Push: the browsers' subscriptions and the VAPID key pair.
  .add("pushStore", {
    tag: PushStore.PushStore,
    sql: SqlPushStore.layer,
    memory: MemoryPushStore.layer,
    schema: pushSchema,
  })

/** Every store the kernel's services keep their data in. */
export type Stores = StoreSet.Services<typeof catalog>

/** The name of each store: its `Kernel.layer` option. */
export type StoreName = (typeof catalog.names)[number]

/** One optional Layer per store, replacing its default whole (see `catalog` for what each keeps). */
export type StoreLayers = StoreSet.Options<typeof catalog>

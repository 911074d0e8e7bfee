import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import type { AuthStore } from "../auth/AuthStore.js"
import * as SqlAuthStore from "../auth/SqlAuthStore.js"
import type { ChannelConversations } from "../channels/gateway/ChannelConversations.js"
import * as SqlChannelConversations from "../channels/gateway/SqlChannelConversations.js"
import type { ChatRuns } from "../chat/ChatRuns.js"
import * as SqlChatRuns from "../chat/SqlChatRuns.js"
import type { ConfigStore } from "../config/ConfigStore.js"
import * as SqlConfigStore from "../config/SqlConfigStore.js"
import type { Ids } from "../ids/Ids.js"
import type { InboxStore } from "../inbox/InboxStore.js"
import * as SqlInboxStore from "../inbox/SqlInboxStore.js"
import type { McpOAuthStore } from "../mcp/McpOAuthStore.js"
import * as SqlMcpOAuthStore from "../mcp/SqlMcpOAuthStore.js"
import type { MemoryStore } from "../memory/MemoryStore.js"
import type { ObservationStore } from "../memory/observational/ObservationStore.js"
import * as SqlObservationStore from "../memory/observational/SqlObservationStore.js"
import type { RecallIndex } from "../memory/recall/RecallIndex.js"
import * as SqlRecallIndex from "../memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../memory/SqlMemoryStore.js"
import type { RunLedger } from "../scheduler/RunLedger.js"
import * as SqlRunLedger from "../scheduler/SqlRunLedger.js"
import * as SqlThreads from "../threads/SqlThreads.js"
import type { Threads } from "../threads/Threads.js"
import type { StorageError } from "./StorageError.js"

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

/**
 * Every store on one `SqlClient` (SQLite or PostgreSQL), the schema migrated first: give it a
 * connection (`SqliteStorage`, `PostgresStorage` or your own pool) and it provides the stores.
 * Each `Sql*.layer` also works alone (they share one run of the migrations).
 */
export const layer: Layer.Layer<Stores, StorageError, SqlClient.SqlClient | Ids> = Layer.mergeAll(
  SqlAuthStore.layer,
  SqlConfigStore.layer,
  SqlThreads.layer,
  SqlChatRuns.layer,
  SqlInboxStore.layer,
  SqlMcpOAuthStore.layer,
  SqlRunLedger.layer,
  SqlMemoryStore.layer,
  SqlObservationStore.layer,
  SqlRecallIndex.layer,
  SqlChannelConversations.layer,
)

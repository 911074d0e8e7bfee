import { Layer } from "effect"
import * as MemoryAuthStore from "../auth/MemoryAuthStore.js"
import * as ChannelConversations from "../channels/gateway/ChannelConversations.js"
import * as WebhookReplays from "../channels/gateway/WebhookReplays.js"
import * as MemoryChatRuns from "../chat/MemoryChatRuns.js"
import * as ConfigStore from "../config/ConfigStore.js"
import type { Ids } from "../ids/Ids.js"
import * as MemoryInboxStore from "../inbox/MemoryInboxStore.js"
import * as MemoryMcpOAuthStore from "../mcp/MemoryMcpOAuthStore.js"
import * as MemoryWorkingStore from "../memory/MemoryWorkingStore.js"
import * as MemoryObservationStore from "../memory/observational/MemoryObservationStore.js"
import * as RecallIndex from "../memory/recall/RecallIndex.js"
import * as MemoryRunLedger from "../scheduler/MemoryRunLedger.js"
import * as MemoryThreads from "../threads/MemoryThreads.js"
import type { Stores } from "./SqlStores.js"

/**
 * Each store in this process's memory, by the name of its `Kernel.layer` option (as
 * `SqlStores.layers`). Nothing touches the disk and everything is gone when the process ends:
 * for tests, demos, and hosts that keep nothing between runs. Semantic recall finds nothing
 * (`RecallIndex.layerEmpty`: no full-text or vector index in memory).
 */
export const layers = {
  authStore: MemoryAuthStore.layer,
  configStore: ConfigStore.layerMemory,
  threads: MemoryThreads.layer,
  chatRuns: MemoryChatRuns.layer,
  inboxStore: MemoryInboxStore.layer,
  mcpOAuthStore: MemoryMcpOAuthStore.layer,
  runLedger: MemoryRunLedger.layer,
  memoryStore: MemoryWorkingStore.layer,
  observationStore: MemoryObservationStore.layer,
  recallIndex: RecallIndex.layerEmpty,
  channelConversations: ChannelConversations.layerMemory,
  webhookReplays: WebhookReplays.layerMemory,
} as const

/** Every store in memory (threads take their ids from `Ids`). */
export const layer: Layer.Layer<Stores, never, Ids> = Layer.mergeAll(
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

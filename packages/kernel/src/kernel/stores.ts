import * as Path from "node:path"
import { Layer } from "effect"
import * as SqlAuthStore from "../auth/SqlAuthStore.js"
import * as SqlChannelConversations from "../channels/gateway/SqlChannelConversations.js"
import * as SqlChatRuns from "../chat/SqlChatRuns.js"
import * as SqlConfigStore from "../config/SqlConfigStore.js"
import type * as Ids from "../ids/Ids.js"
import * as SqlInboxStore from "../inbox/SqlInboxStore.js"
import * as SqlMcpOAuthStore from "../mcp/SqlMcpOAuthStore.js"
import * as SqlObservationStore from "../memory/observational/SqlObservationStore.js"
import * as SqlRecallIndex from "../memory/recall/SqlRecallIndex.js"
import * as SqlMemoryStore from "../memory/SqlMemoryStore.js"
import * as SqlRunLedger from "../scheduler/SqlRunLedger.js"
import * as SqliteStorage from "../storage/SqliteStorage.js"
import * as SqlThreads from "../threads/SqlThreads.js"
import type { StoreOptions } from "./KernelOptions.js"
import { KernelOptionsError, requireDataDir } from "./KernelOptionsError.js"

/**
 * The stores of `options`, the SQL ones on one connection. The connection is opened only when
 * some store is SQL: an embedder replacing them all never touches `dataDir/aide.db`.
 */
export const storesLayer = (options: StoreOptions & { readonly dataDir?: string }, ids: Layer.Layer<Ids.Ids>) => {
  const { authStore, configStore, threads, chatRuns, inboxStore, mcpOAuthStore, runLedger } = options
  const { memoryStore, observationStore, channelConversations } = options
  // The SQL index reads the `messages` table of the SQL threads: it goes with them, never alone.
  if (threads !== undefined && options.recallIndex === undefined) {
    throw new KernelOptionsError({
      message:
        "Kernel.layer: `threads` was replaced, so give `recallIndex` too (`RecallIndex.layerEmpty` for no semantic recall, or an index over your threads)",
    })
  }
  const recallIndex = options.recallIndex ?? SqlRecallIndex.layer
  const allGiven = authStore && configStore && threads && chatRuns && inboxStore && mcpOAuthStore && runLedger
  if (allGiven && memoryStore && observationStore && channelConversations && options.recallIndex) {
    const stores = Layer.mergeAll(
      authStore,
      configStore,
      threads,
      chatRuns,
      inboxStore,
      mcpOAuthStore,
      runLedger,
      memoryStore,
      observationStore,
      channelConversations,
      options.recallIndex,
    )
    return Layer.merge(stores, ids)
  }
  const stores = Layer.mergeAll(
    authStore ?? SqlAuthStore.layer,
    configStore ?? SqlConfigStore.layer,
    threads ?? SqlThreads.layer,
    chatRuns ?? SqlChatRuns.layer,
    inboxStore ?? SqlInboxStore.layer,
    mcpOAuthStore ?? SqlMcpOAuthStore.layer,
    runLedger ?? SqlRunLedger.layer,
    memoryStore ?? SqlMemoryStore.layer,
    observationStore ?? SqlObservationStore.layer,
    channelConversations ?? SqlChannelConversations.layer,
    recallIndex,
  )
  const storage =
    options.storage ??
    SqliteStorage.layer({
      filename: Path.join(
        requireDataDir(options.dataDir, "the SQLite database", "`storage`, or a Layer for every store"),
        "aide.db",
      ),
    })
  return Layer.provideMerge(stores, Layer.merge(storage, ids))
}

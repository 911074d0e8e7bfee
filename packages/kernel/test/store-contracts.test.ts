import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  authStoreContract,
  channelConversationsContract,
  chatRunsContract,
  configStoreContract,
  connectionStoreContract,
  inboxStoreContract,
  mcpGrantStoreContract,
  mcpOAuthStoreContract,
  mcpSessionStoreContract,
  memoryStoreContract,
  observationStoreContract,
  onSqlDialects,
  pushStoreContract,
  recallIndexContract,
  runLedgerContract,
  threadsContract,
  webhookReplaysContract,
} from "@aide/testing/effect"
import { describe, expect, it } from "vitest"
import * as MemoryAuthStore from "../src/auth/MemoryAuthStore.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as ConfigStore from "../src/config/ConfigStore.js"
import * as SqlConfigStore from "../src/config/SqlConfigStore.js"
import * as MemoryInboxStore from "../src/inbox/MemoryInboxStore.js"
import * as SqlInboxStore from "../src/inbox/SqlInboxStore.js"
import * as MemoryMcpOAuthStore from "../src/mcp/MemoryMcpOAuthStore.js"
import * as SqlMcpOAuthStore from "../src/mcp/SqlMcpOAuthStore.js"
import * as McpSessionStore from "../src/mcpserver/McpSessionStore.js"
import * as MemoryMcpGrantStore from "../src/mcpserver/MemoryMcpGrantStore.js"
import * as SqlMcpGrantStore from "../src/mcpserver/SqlMcpGrantStore.js"
import * as SqlMcpSessionStore from "../src/mcpserver/SqlMcpSessionStore.js"
import * as MemoryWorkingStore from "../src/memory/MemoryWorkingStore.js"
import * as MemoryObservationStore from "../src/memory/observational/MemoryObservationStore.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as MemoryConnectionStore from "../src/models/connections/MemoryConnectionStore.js"
import * as SqlConnectionStore from "../src/models/connections/SqlConnectionStore.js"
import * as MemoryPushStore from "../src/push/MemoryPushStore.js"
import * as SqlPushStore from "../src/push/SqlPushStore.js"
import { catalog, type StoreName } from "../src/stores/Stores.js"

/**
 * The contract suite of each store of the record (`Stores.catalog`) and the test file running it
 * on the kernel's stores: a store added to the record without one does not compile here.
 */
const contracts: { readonly [K in StoreName]: readonly [suite: { readonly name: string }, file: string] } = {
  authStore: [authStoreContract, "store-contracts.test.ts"],
  configStore: [configStoreContract, "store-contracts.test.ts"],
  threads: [threadsContract, "threads.test.ts"],
  inboxStore: [inboxStoreContract, "store-contracts.test.ts"],
  chatRuns: [chatRunsContract, "chat-runs.test.ts"],
  runLedger: [runLedgerContract, "run-ledger.test.ts"],
  mcpOAuthStore: [mcpOAuthStoreContract, "store-contracts.test.ts"],
  memoryStore: [memoryStoreContract, "store-contracts.test.ts"],
  observationStore: [observationStoreContract, "store-contracts.test.ts"],
  recallIndex: [recallIndexContract, "threads.test.ts"],
  channelConversations: [channelConversationsContract, "channel-conversations.test.ts"],
  webhookReplays: [webhookReplaysContract, "hardening/webhook-replay-stores.test.ts"],
  mcpSessionStore: [mcpSessionStoreContract, "store-contracts.test.ts"],
  mcpGrantStore: [mcpGrantStoreContract, "store-contracts.test.ts"],
  connectionStore: [connectionStoreContract, "store-contracts.test.ts"],
  pushStore: [pushStoreContract, "store-contracts.test.ts"],
}

describe("the store record's contract suites", () => {
  it("every store of Stores.catalog has its contract suite, run by the file named", () => {
    expect(Object.keys(contracts).sort()).toEqual([...catalog.names].sort())
    for (const [suite, file] of Object.values(contracts)) {
      // Called, or handed to `onSqlDialects`: named outside the imports and comments.
      const source = Fs.readFileSync(Path.join(import.meta.dirname, file), "utf8")
        .replace(/^import [^;]*? from "[^"]+"$/gms, "")
        .replace(/^\s*\/\/.*$/gm, "")
      expect(source, `${file} runs ${suite.name}`).toMatch(new RegExp(`\\b${suite.name}\\b`))
    }
  })

  it("every store's Tag names its suite in its doc, where the rules it checks are written", () => {
    for (const [store, module] of Object.entries(tagModules)) {
      const [suite] = contracts[store as StoreName]
      const source = Fs.readFileSync(Path.join(import.meta.dirname, "../src", module), "utf8")
      const docs = (source.match(/\/\*\*[\s\S]*?\*\//g) ?? []).join("\n")
      expect(docs, `${module} names ${suite.name}`).toMatch(new RegExp(`\`${suite.name}\``))
    }
  })
})

/** The module of each store's Tag (its doc states the contract: an implementer need not guess). */
const tagModules: { readonly [K in StoreName]: string } = {
  authStore: "auth/AuthStore.ts",
  configStore: "config/ConfigStore.ts",
  threads: "threads/Threads.ts",
  inboxStore: "inbox/InboxStore.ts",
  chatRuns: "chat/ChatRuns.ts",
  runLedger: "scheduler/RunLedger.ts",
  mcpOAuthStore: "mcp/McpOAuthStore.ts",
  memoryStore: "memory/MemoryStore.ts",
  observationStore: "memory/observational/ObservationStore.ts",
  recallIndex: "memory/recall/RecallIndex.ts",
  channelConversations: "channels/gateway/ChannelConversations.ts",
  webhookReplays: "channels/gateway/WebhookReplays.ts",
  mcpSessionStore: "mcpserver/McpSessionStore.ts",
  mcpGrantStore: "mcpserver/McpGrantStore.ts",
  connectionStore: "models/connections/ConnectionStore.ts",
  pushStore: "push/PushStore.ts",
}

// The contracts @aide/testing exports for third-party stores, on the kernel's SQL and in-memory ones.
onSqlDialects(memoryStoreContract, "SqlMemoryStore", SqlMemoryStore.layer)
memoryStoreContract("MemoryWorkingStore", MemoryWorkingStore.layer)
onSqlDialects(inboxStoreContract, "SqlInboxStore", SqlInboxStore.layer)
inboxStoreContract("MemoryInboxStore", MemoryInboxStore.layer)
onSqlDialects(mcpOAuthStoreContract, "SqlMcpOAuthStore", SqlMcpOAuthStore.layer)
mcpOAuthStoreContract("MemoryMcpOAuthStore", MemoryMcpOAuthStore.layer)
onSqlDialects(authStoreContract, "SqlAuthStore", SqlAuthStore.layer)
authStoreContract("MemoryAuthStore", MemoryAuthStore.layer)
onSqlDialects(configStoreContract, "SqlConfigStore", SqlConfigStore.layer)
configStoreContract("ConfigStore.layerMemory", ConfigStore.layerMemory)
onSqlDialects(observationStoreContract, "SqlObservationStore", SqlObservationStore.layer)
observationStoreContract("MemoryObservationStore", MemoryObservationStore.layer)
onSqlDialects(mcpSessionStoreContract, "SqlMcpSessionStore", SqlMcpSessionStore.layer)
mcpSessionStoreContract("McpSessionStore.layerMemory", McpSessionStore.layerMemory)
onSqlDialects(mcpGrantStoreContract, "SqlMcpGrantStore", SqlMcpGrantStore.layer)
mcpGrantStoreContract("MemoryMcpGrantStore", MemoryMcpGrantStore.layer)
onSqlDialects(connectionStoreContract, "SqlConnectionStore", SqlConnectionStore.layer)
connectionStoreContract("MemoryConnectionStore", MemoryConnectionStore.layer)
onSqlDialects(pushStoreContract, "SqlPushStore", SqlPushStore.layer)
pushStoreContract("MemoryPushStore", MemoryPushStore.layer)

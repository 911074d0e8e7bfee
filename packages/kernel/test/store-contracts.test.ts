import {
  authStoreContract,
  configStoreContract,
  inboxStoreContract,
  mcpOAuthStoreContract,
  memoryStoreContract,
  observationStoreContract,
  onSqlDialects,
} from "@aide/testing/effect"
import * as MemoryAuthStore from "../src/auth/MemoryAuthStore.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as ConfigStore from "../src/config/ConfigStore.js"
import * as SqlConfigStore from "../src/config/SqlConfigStore.js"
import * as MemoryInboxStore from "../src/inbox/MemoryInboxStore.js"
import * as SqlInboxStore from "../src/inbox/SqlInboxStore.js"
import * as MemoryMcpOAuthStore from "../src/mcp/MemoryMcpOAuthStore.js"
import * as SqlMcpOAuthStore from "../src/mcp/SqlMcpOAuthStore.js"
import * as MemoryWorkingStore from "../src/memory/MemoryWorkingStore.js"
import * as MemoryObservationStore from "../src/memory/observational/MemoryObservationStore.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"

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

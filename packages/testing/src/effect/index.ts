/**
 * @aide/testing/effect — Effect helpers for testing Aide and code embedding its kernel: a test
 * kernel, migrated SQLite/PostgreSQL test databases, one suite on both dialects, `eventually`, and
 * the contract suite of each store Tag (run it on your own store: `runLedgerContract(name, layer)`).
 */
export { bothDialects } from "./BothDialects.js"
export {
  authStoreContract,
  channelConversationsContract,
  chatRunsContract,
  configStoreContract,
  connectionStoreContract,
  contractIt,
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
} from "./contracts/index.js"
export {
  createTestDatabase,
  freshPostgresStorage,
  postgresAvailable,
  tempDirectory,
  tempSqliteStorage,
  testDatabaseUrl,
} from "./Databases.js"
export { eventually, until } from "./Eventually.js"
export { singleModelRegistry, type TestKernelOptions, testKernel } from "./TestKernel.js"

/**
 * @aide/testing/contracts — the contract suite of each store Tag and `onSqlDialects`, also in
 * `@aide/testing/effect`. This entry loads only the kernel's store entries
 * (`@aide/kernel/storage`, `/threads`, `/postgres`): no service, no AI or MCP SDK.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { freshPostgresStorage, postgresAvailable, tempSqliteStorage } from "../Databases.js"
import { describe } from "../EffectVitest.js"

export { authStoreContract } from "./AuthStoreContract.js"
export { channelConversationsContract } from "./ChannelConversationsContract.js"
export { chatRunsContract } from "./ChatRunsContract.js"
export { configStoreContract } from "./ConfigStoreContract.js"
export { connectionStoreContract } from "./ConnectionStoreContract.js"
export { contractIt } from "./ContractTest.js"
export { inboxStoreContract } from "./InboxStoreContract.js"
export { mcpGrantStoreContract } from "./McpGrantStoreContract.js"
export { mcpOAuthStoreContract } from "./McpOAuthStoreContract.js"
export { mcpSessionStoreContract } from "./McpSessionStoreContract.js"
export { memoryStoreContract } from "./MemoryStoreContract.js"
export { observationStoreContract } from "./ObservationStoreContract.js"
export { pushStoreContract } from "./PushStoreContract.js"
export { recallIndexContract } from "./RecallIndexContract.js"
export { runLedgerContract } from "./RunLedgerContract.js"
export { threadsContract } from "./ThreadsContract.js"
export { webhookReplaysContract } from "./WebhookReplaysContract.js"

/**
 * Runs a store contract on a SQL store over SQLite and PostgreSQL (skipped without
 * `AIDE_TEST_DATABASE_URL`), a fresh database per test.
 *
 * @example
 * onSqlDialects(runLedgerContract, "SqlRunLedger", SqlRunLedger.layer)
 */
export const onSqlDialects = <Tag, E>(
  contract: (name: string, store: Layer.Layer<Tag, unknown>) => void,
  name: string,
  store: Layer.Layer<Tag, E, SqlClient.SqlClient>,
) => {
  contract(`${name} (SQLite)`, Layer.provide(store, tempSqliteStorage))
  describe.skipIf(!postgresAvailable)(`${name} (PostgreSQL)`, () => {
    contract(`${name} (PostgreSQL)`, Layer.provide(store, freshPostgresStorage))
  })
}

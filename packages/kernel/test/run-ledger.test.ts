import { onSqlDialects, runLedgerContract } from "@aide/testing/effect"
import * as MemoryRunLedger from "../src/scheduler/MemoryRunLedger.js"
import * as SqlRunLedger from "../src/scheduler/SqlRunLedger.js"

// The contract every RunLedger keeps (exported by @aide/testing for third parties).
onSqlDialects(runLedgerContract, "SqlRunLedger", SqlRunLedger.layer)
runLedgerContract("MemoryRunLedger", MemoryRunLedger.layer)

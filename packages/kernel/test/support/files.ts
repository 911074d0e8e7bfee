/** The kernel suites' names for the shared test kit (`@aide/testing/effect`). */
export { tempDirectory, tempSqliteStorage as tempSqliteStorageLayer } from "@aide/testing/effect"

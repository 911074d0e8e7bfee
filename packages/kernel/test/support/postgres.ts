/** The kernel suites' names for the shared test kit (`@aide/testing/effect`). */
export {
  createTestDatabase,
  freshPostgresStorage as freshStorageLayer,
  postgresAvailable,
  testDatabaseUrl,
} from "@aide/testing/effect"

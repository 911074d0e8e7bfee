import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as PostgresStorage from "../../src/storage/PostgresStorage.js"
import { SqlMigrations } from "../../src/storage/SqlMigrations.js"

/**
 * PostgreSQL for tests: `AIDE_TEST_DATABASE_URL` names a server and a database we may create
 * databases from. Unset, PostgreSQL suites are skipped with a notice (CI always sets it).
 */
export const testDatabaseUrl = process.env.AIDE_TEST_DATABASE_URL

export const postgresAvailable = testDatabaseUrl !== undefined && testDatabaseUrl !== ""

if (!postgresAvailable) {
  console.warn("[aide] AIDE_TEST_DATABASE_URL is not set: PostgreSQL suites are skipped")
}

const adminQuery = (statement: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    yield* sql.unsafe(statement)
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(testDatabaseUrl ?? ""), maxConnections: 1 })),
    Effect.runPromise,
  )

/**
 * Creates an empty database of its own for one test file or test; returns its URL and a
 * function that drops it.
 */
export const createTestDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  if (!postgresAvailable || testDatabaseUrl === undefined) throw new Error("AIDE_TEST_DATABASE_URL is not set")
  const name = `aide_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await adminQuery(`CREATE DATABASE ${name}`)
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}

/** `PostgresStorage` (migrated) on a fresh database, dropped when the layer is released. */
export const freshStorageLayer = Layer.unwrapScoped(
  Effect.acquireRelease(
    Effect.promise(() => createTestDatabase()),
    (database) => Effect.promise(() => database.drop()),
  ).pipe(
    Effect.map((database) =>
      Layer.provideMerge(SqlMigrations, PostgresStorage.layer({ url: Redacted.make(database.url), maxConnections: 4 })),
    ),
  ),
)

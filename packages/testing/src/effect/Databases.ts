import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { SqliteStorage, SqlStores } from "@aide/kernel/storage"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import { postgresPeers, requirePeers } from "./Peers.js"

/**
 * PostgreSQL for tests: `AIDE_TEST_DATABASE_URL` names a server and a database we may create
 * databases from. Unset, PostgreSQL suites are skipped with a notice (CI always sets it).
 */
export const testDatabaseUrl = process.env.AIDE_TEST_DATABASE_URL

export const postgresAvailable = testDatabaseUrl !== undefined && testDatabaseUrl !== ""

let warned = false
const warnOnce = () => {
  if (!postgresAvailable && !warned) {
    warned = true
    console.warn("[aide] AIDE_TEST_DATABASE_URL is not set: PostgreSQL suites are skipped")
  }
}
warnOnce()

/**
 * The PostgreSQL driver and storage, loaded by the PostgreSQL suites only: they are optional peers
 * (a SQLite-only or in-memory test installs neither), checked first so a missing one is named.
 */
const postgres = async () => {
  requirePeers(import.meta.url, postgresPeers)
  const [{ PgClient }, { PostgresStorage }] = await Promise.all([
    import("@effect/sql-pg"),
    import("@aide/kernel/postgres"),
  ])
  return { PgClient, PostgresStorage }
}

const adminQuery = async (statement: string) => {
  const { PgClient } = await postgres()
  return Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    yield* sql.unsafe(statement)
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(testDatabaseUrl ?? ""), maxConnections: 1 })),
    Effect.runPromise,
  )
}

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

/** An empty directory of its own, removed with everything in it when the scope closes. */
export const tempDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "aide-test-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })),
)

/** `SqliteStorage`, migrated, on a file in a temporary directory removed when the layer is released. */
export const tempSqliteStorage: Layer.Layer<SqlClient.SqlClient, unknown> = Layer.unwrapScoped(
  Effect.map(tempDirectory, (directory) =>
    Layer.provideMerge(SqlStores.migrated, SqliteStorage.layer({ filename: Path.join(directory, "aide.db") })),
  ),
)

/** `PostgresStorage`, migrated, on a fresh database dropped when the layer is released. */
export const freshPostgresStorage: Layer.Layer<SqlClient.SqlClient, unknown> = Layer.unwrapScoped(
  Effect.acquireRelease(
    Effect.promise(() => createTestDatabase()),
    (database) => Effect.promise(() => database.drop()),
  ).pipe(
    Effect.flatMap((database) =>
      Effect.promise(postgres).pipe(
        Effect.map(({ PostgresStorage }) =>
          Layer.provideMerge(
            SqlStores.migrated,
            PostgresStorage.layer({ url: Redacted.make(database.url), maxConnections: 4 }),
          ),
        ),
      ),
    ),
  ),
)

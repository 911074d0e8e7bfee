import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Deferred, Effect, Exit } from "effect"
import { StorageError } from "./StorageError.js"

/**
 * One step of a store's schema. `id`s only grow; a released migration is never edited. The
 * kernel's are written once for every dialect it supports: plain TEXT timestamps (ISO 8601,
 * comparable as text), no dialect-only types, `sql.onDialectOrElse` where a statement differs.
 */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly up: Effect.Effect<unknown, SqlError, SqlClient.SqlClient>
  /**
   * The id this step had in release 0.1's global `aide_migrations` table: a database made by that
   * release has already run it, so it is recorded as applied instead of run again.
   */
  readonly legacyId?: number
}

/**
 * The schema of one store: its own namespace (`name`) of migrations in `aide_schema_migrations`,
 * and the schemas it builds on (e.g. triggers on another store's table), brought up first.
 */
export interface Schema {
  readonly name: string
  readonly migrations: ReadonlyArray<Migration>
  readonly requires?: ReadonlyArray<Schema>
}

/** Namespaced by `schema_name`: every store, the kernel's or yours, keeps its own list here. */
export const table = "aide_schema_migrations"

/** Any fixed 64-bit key: every process migrating one PostgreSQL database takes the same lock. */
const advisoryLockKey = 7_231_905_114

/** One run per schema and connection (pool) object, however many stores are built on it, in parallel or not. */
const runs = new WeakMap<SqlClient.SqlClient, Map<string, Deferred.Deferred<void, StorageError>>>()

const legacyApplied = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const present = yield* sql.onDialectOrElse({
      pg: () =>
        sql<{ readonly n: number }>`SELECT COUNT(*)::int AS n FROM information_schema.tables
                                    WHERE table_schema = current_schema() AND table_name = 'aide_migrations'`,
      orElse: () =>
        sql<{
          readonly n: number
        }>`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'aide_migrations'`,
    })
    if (Number(present[0]?.n ?? 0) === 0) return new Set<number>()
    const rows = yield* sql<{ readonly id: number }>`SELECT migration_id AS id FROM aide_migrations`
    return new Set(rows.map((row) => Number(row.id)))
  })

/**
 * Applies the schema's pending migrations in one transaction. On PostgreSQL a transaction-scoped
 * advisory lock is taken before anything else (even creating the table), so replicas starting
 * at once run each migration once: the second waits, then finds it applied.
 */
const migrate = (schema: Schema) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      pg: () => sql`SELECT pg_advisory_xact_lock(${advisoryLockKey})`,
      orElse: () => Effect.void,
    })
    yield* sql`CREATE TABLE IF NOT EXISTS aide_schema_migrations (
      schema_name TEXT NOT NULL,
      migration_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL,
      PRIMARY KEY (schema_name, migration_id)
    )`
    const rows = yield* sql<{ readonly id: number }>`
      SELECT migration_id AS id FROM aide_schema_migrations WHERE schema_name = ${schema.name}`
    const applied = new Set(rows.map((row) => Number(row.id)))
    const pending = schema.migrations.filter((migration) => !applied.has(migration.id))
    if (pending.length === 0) return
    // A database made by release 0.1 has run some of these already, under the global numbering.
    const legacy = yield* legacyApplied(sql)
    for (const migration of [...pending].sort((a, b) => a.id - b.id)) {
      const done = migration.legacyId !== undefined && legacy.has(migration.legacyId)
      // At DEBUG, as @effect/sql's Migrator logs it: operators see what a start changed.
      yield* Effect.logDebug(done ? "Migration already applied by release 0.1" : "Running migration").pipe(
        Effect.annotateLogs({
          schema: schema.name,
          migration_name: migration.name,
          migration_id: String(migration.id),
        }),
      )
      if (!done)
        yield* migration.up.pipe(
          Effect.withSpan("SqlMigrations.migration", {
            attributes: { schema: schema.name, migration: migration.name },
          }),
        )
      const now = new Date(yield* Clock.currentTimeMillis).toISOString()
      yield* sql`INSERT INTO aide_schema_migrations (schema_name, migration_id, name, applied_at)
                 VALUES (${schema.name}, ${migration.id}, ${migration.name}, ${now})`
    }
  }).pipe(Effect.withSpan("SqlMigrations", { attributes: { schema: schema.name } }))

/**
 * Brings one store's schema (and the schemas it requires) up to date on the `SqlClient` at hand,
 * once per client: every `Sql*` store runs it before it is made, so a database Aide never saw
 * (an embedder's own pool) works as well as one `SqliteStorage` opened. Stores sharing a schema
 * share its run. A failure is reported to every waiting store, and the next attempt starts afresh.
 */
export const ensure = (schema: Schema): Effect.Effect<void, StorageError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    for (const required of schema.requires ?? []) yield* ensure(required)
    const sql = yield* SqlClient.SqlClient
    const byName = runs.get(sql) ?? new Map<string, Deferred.Deferred<void, StorageError>>()
    runs.set(sql, byName)
    const running = byName.get(schema.name)
    if (running !== undefined) return yield* Deferred.await(running)
    const done = yield* Deferred.make<void, StorageError>()
    byName.set(schema.name, done)
    const exit = yield* Effect.exit(
      sql
        .withTransaction(migrate(schema))
        .pipe(
          Effect.mapError(
            (cause) => new StorageError({ message: `migrating the ${schema.name} schema failed`, cause }),
          ),
        ),
    )
    if (Exit.isFailure(exit)) byName.delete(schema.name)
    yield* Deferred.done(done, Exit.asVoid(exit))
    return yield* Exit.asVoid(exit)
  }).pipe(Effect.uninterruptible)

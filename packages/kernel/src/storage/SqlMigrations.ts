import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Exit, Layer } from "effect"
import * as Migrations from "./migrations.js"
import { StorageError } from "./StorageError.js"

/** One migration per connection (pool) object, however many stores are built on it, in parallel or not. */
const migrations = new WeakMap<SqlClient.SqlClient, Deferred.Deferred<void, StorageError>>()

/**
 * Brings the schema of the SQL stores up to date on the `SqlClient` at hand, once per client:
 * every `Sql*` store runs it before it is made, so a database Aide never saw (an embedder's own
 * pool) works as well as one `SqliteStorage` opened, and two stores on two databases each get
 * theirs. (Not a memoized Layer: memoization is by reference, whatever the client it is given.)
 * The migrator's table (`aide_migrations`) and lock make a second process's run a no-op.
 */
export const ensureMigrated: Effect.Effect<void, StorageError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const running = migrations.get(sql)
  if (running !== undefined) return yield* Deferred.await(running)
  const done = yield* Deferred.make<void, StorageError>()
  migrations.set(sql, done)
  const exit = yield* Effect.exit(
    Migrations.run.pipe(
      Effect.mapError((cause) => new StorageError({ message: "migrating the database failed", cause })),
      Effect.withSpan("SqlMigrations"),
    ),
  )
  // A failure is reported to every waiting store, and the next attempt starts afresh.
  if (Exit.isFailure(exit)) migrations.delete(sql)
  yield* Deferred.done(done, Exit.asVoid(exit))
  return yield* Exit.asVoid(exit)
}).pipe(Effect.uninterruptible)

/** `ensureMigrated` as a Layer: put it over a connection to get a migrated one. */
export const SqlMigrations: Layer.Layer<never, StorageError, SqlClient.SqlClient> = Layer.effectDiscard(ensureMigrated)

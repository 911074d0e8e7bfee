import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Deferred, Effect, Exit } from "effect"
import { StorageError } from "../storage/StorageError.js"

/**
 * The tables of replica coordination, PostgreSQL only (one process on SQLite needs none). Their
 * own migrator table, `aide_replica_migrations`: they are created only by servers that run as
 * replicas, whatever the stores' schema version. Timestamps are the database's (`now()`), so
 * replicas whose clocks disagree still agree on who holds what.
 */
const leaseTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS aide_leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
  )`
})

/** Threads with a run going on some replica: "one run per thread" across replicas. */
const threadClaimTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS aide_thread_claims (
    thread_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
  )`
})

const loader = Migrator.fromRecord({ "0001_leases": leaseTable, "0002_thread_claims": threadClaimTable })

const run = Migrator.make({})({ loader, table: "aide_replica_migrations" })

const migrations = new WeakMap<SqlClient.SqlClient, Deferred.Deferred<void, StorageError>>()

/** Brings the replica tables up to date, once per connection pool however many services ask. */
export const ensureReplicaTables: Effect.Effect<void, StorageError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const running = migrations.get(sql)
  if (running !== undefined) return yield* Deferred.await(running)
  const done = yield* Deferred.make<void, StorageError>()
  migrations.set(sql, done)
  const exit = yield* Effect.exit(
    run.pipe(Effect.mapError((cause) => new StorageError({ message: "migrating the replica tables failed", cause }))),
  )
  if (Exit.isFailure(exit)) migrations.delete(sql)
  yield* Deferred.done(done, Exit.asVoid(exit))
  return yield* Exit.asVoid(exit)
}).pipe(Effect.uninterruptible)

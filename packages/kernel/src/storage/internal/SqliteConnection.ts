import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, Statement } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
// @ts-expect-error better-sqlite3 ships no types (the interfaces below say what is used of it)
import BetterSqlite from "better-sqlite3"
import { Context, Effect, Layer, Scope } from "effect"

/** What is used of a better-sqlite3 prepared statement. */
interface PreparedStatement {
  readonly reader: boolean
  readonly all: (...params: ReadonlyArray<unknown>) => ReadonlyArray<unknown>
  readonly run: (...params: ReadonlyArray<unknown>) => unknown
  readonly raw: (toggle: boolean) => PreparedStatement
  readonly safeIntegers: (toggle: boolean) => PreparedStatement
}

/** What is used of a better-sqlite3 database. */
interface Database {
  readonly prepare: (sql: string) => PreparedStatement
  readonly pragma: (source: string) => unknown
  readonly close: () => unknown
}

/** better-sqlite3, the driver `@effect/sql-sqlite-node` uses too (the same installed copy). */
const Sqlite = BetterSqlite as new (filename: string) => Database

/** Prepared statements kept per connection: the stores use a few dozen distinct ones. */
const maxPrepared = 200

/**
 * SQLite for `@effect/sql`'s client, the way the storage layer uses it: one better-sqlite3
 * connection, WAL. What it leaves out of `@effect/sql-sqlite-node`'s is per-statement Effect
 * machinery a synchronous driver does not need: prepared statements sit in a plain map (not a
 * TTL `Cache`: a lookup there is a clock read, a Ref and a Deferred), and a statement outside a
 * transaction takes no lock while none is open (there, a semaphore's take and release wrapped
 * every statement). About 30 fewer Effect operations per statement; a chat runs ~20 of them.
 *
 * The lock that remains is what keeps transactions whole: a transaction holds it from `BEGIN` to
 * `COMMIT`/`ROLLBACK` (its statements may wait on other fibers in between), and a statement of
 * another fiber that meets an open transaction waits for it instead of running inside it. The
 * check and the statement run in one step of the fiber, so nothing can begin between them.
 */
export const make = (filename: string) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new Sqlite(filename),
        catch: (cause) => new SqlError({ cause, message: `Failed to open the database ${filename}` }),
      }),
      (opened) => Effect.sync(() => opened.close()),
    )
    db.pragma("journal_mode = WAL")

    const prepared = new Map<string, PreparedStatement>()
    const prepare = (sql: string): PreparedStatement => {
      let statement = prepared.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        if (prepared.size >= maxPrepared) prepared.delete(prepared.keys().next().value!)
        prepared.set(sql, statement)
      }
      return statement
    }

    type Mode = "rows" | "raw" | "values"
    const runNow = (
      statement: PreparedStatement,
      params: ReadonlyArray<unknown>,
      mode: Mode,
      safeIntegers: boolean,
    ) => {
      if (safeIntegers) statement.safeIntegers(true)
      try {
        if (mode === "values") {
          if (!statement.reader) {
            statement.run(...params)
            return []
          }
          statement.raw(true)
          try {
            return statement.all(...params)
          } finally {
            statement.raw(false)
          }
        }
        if (statement.reader) return statement.all(...params)
        const result = statement.run(...params)
        return mode === "raw" ? result : []
      } finally {
        if (safeIntegers) statement.safeIntegers(false)
      }
    }

    const lock = yield* Effect.makeSemaphore(1)
    let transactionOpen = false

    /** One statement; `owned`: it belongs to the open transaction (or holds the lock itself). */
    const execute = (
      sql: string,
      params: ReadonlyArray<unknown>,
      mode: Mode,
      options: { readonly owned: boolean; readonly unprepared: boolean },
    ): Effect.Effect<any, SqlError> =>
      Effect.withFiberRuntime((fiber) => {
        if (transactionOpen && !options.owned) {
          return lock.withPermits(1)(execute(sql, params, mode, { ...options, owned: true }))
        }
        try {
          const statement = options.unprepared ? db.prepare(sql) : prepare(sql)
          const safe = Context.get(fiber.currentContext, SqlClient.SafeIntegers)
          return Effect.succeed(runNow(statement, params, mode, safe))
        } catch (cause) {
          return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
        }
      })

    const connection = (owned: boolean): SqlConnection.Connection => {
      const prepared = { owned, unprepared: false } as const
      const unprepared = { owned, unprepared: true } as const
      return {
        execute: (sql, params, transformRows) => {
          const rows = execute(sql, params, "rows", prepared)
          return transformRows === undefined ? rows : Effect.map(rows, transformRows)
        },
        executeRaw: (sql, params) => execute(sql, params, "raw", prepared),
        executeValues: (sql, params) => execute(sql, params, "values", prepared),
        executeUnprepared: (sql, params, transformRows) => {
          const rows = execute(sql, params ?? [], "rows", unprepared)
          return transformRows === undefined ? rows : Effect.map(rows, transformRows)
        },
        executeStream: () => Effect.dieMessage("executeStream is not implemented for SQLite") as never,
      }
    }
    const outside = connection(false)
    const inside = connection(true)

    // The whole transaction holds the lock; statements of other fibers wait for it (above).
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(lock.take(1)),
        Effect.flatMap(Effect.scope, (scope) =>
          Effect.as(
            Effect.zipRight(
              Effect.sync(() => {
                transactionOpen = true
              }),
              Scope.addFinalizer(
                scope,
                Effect.zipRight(
                  Effect.sync(() => {
                    transactionOpen = false
                  }),
                  lock.release(1),
                ),
              ),
            ),
            inside,
          ),
        ),
      ),
    )

    return yield* SqlClient.make({
      acquirer: Effect.succeed(outside),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
    })
  })

/** `SqlClient` over the SQLite file `filename` (`:memory:` for a throwaway database). */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(filename)).pipe(Layer.provide(Reactivity.layer))

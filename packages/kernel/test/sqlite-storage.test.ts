import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import { tempDirectory } from "./support/files.js"

/**
 * What the SQL stores rely on of `SqliteStorage.layer`'s client: a transaction stays whole while
 * other fibers write, statements and errors behave as @effect/sql's clients do.
 */

const withDatabase = <A, E>(use: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`
    return yield* use(sql)
  }).pipe(
    Effect.provide(
      Layer.unwrapScoped(
        Effect.map(tempDirectory, (dir) => SqliteStorage.layer({ filename: Path.join(dir, "aide.db") })),
      ),
    ),
    Effect.scoped,
  )

const names = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ name: string }>`SELECT name FROM items ORDER BY id`, (rows) => rows.map((row) => row.name))

describe("SQLite storage", () => {
  it.effect("a write of another fiber waits for an open transaction: a rollback never takes it along", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        const inTransaction = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // A transaction that writes, waits (other fibers run meanwhile), then fails: rolled back.
        const transaction = yield* Effect.fork(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO items (name) VALUES ('rolled back')`
              yield* Deferred.succeed(inTransaction, undefined)
              yield* Deferred.await(release)
              return yield* Effect.fail("abort" as const)
            }),
          ),
        )
        yield* Deferred.await(inTransaction)
        // Outside the transaction, while it is open: this write must not join it.
        const outsider = yield* Effect.fork(sql`INSERT INTO items (name) VALUES ('kept')`)
        yield* Effect.yieldNow()
        expect(outsider.unsafePoll()).toBeNull()
        yield* Deferred.succeed(release, undefined)
        expect(Exit.isFailure(yield* Fiber.await(transaction))).toBe(true)
        yield* Fiber.join(outsider)
        expect(yield* names(sql)).toEqual(["kept"])
      }),
    ),
  )

  it.effect("transactions of two fibers run one after the other, both committed", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        const write = (prefix: string) =>
          sql.withTransaction(
            Effect.forEach([1, 2, 3], (n) =>
              Effect.zipRight(Effect.yieldNow(), sql`INSERT INTO items (name) VALUES (${`${prefix}${n}`})`),
            ),
          )
        yield* Effect.all([write("a"), write("b")], { concurrency: 2 })
        const rows = yield* names(sql)
        // Never interleaved: each transaction's rows are consecutive.
        expect([rows.join(","), rows.length]).toSatisfy(
          ([joined, length]) => (joined === "a1,a2,a3,b1,b2,b3" || joined === "b1,b2,b3,a1,a2,a3") && length === 6,
        )
      }),
    ),
  )

  it.effect("a nested transaction rolls back to its savepoint only", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO items (name) VALUES ('outer')`
            yield* sql
              .withTransaction(Effect.zipRight(sql`INSERT INTO items (name) VALUES ('inner')`, Effect.fail("no")))
              .pipe(Effect.ignore)
          }),
        )
        expect(yield* names(sql)).toEqual(["outer"])
      }),
    ),
  )

  it.effect("bad SQL and a broken constraint fail with SqlError, and the connection goes on", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        const syntax = yield* Effect.flip(sql`SELEC nothing`)
        expect(syntax._tag).toBe("SqlError")
        yield* sql`INSERT INTO items (name) VALUES ('one')`
        const duplicate = yield* Effect.flip(sql`INSERT INTO items (name) VALUES ('one')`)
        expect(duplicate._tag).toBe("SqlError")
        expect(String((duplicate.cause as Error).message)).toMatch(/UNIQUE/)
        // A failed transaction leaves the lock free for the next one.
        yield* Effect.ignore(
          sql.withTransaction(Effect.zipRight(sql`INSERT INTO items (name) VALUES ('two')`, sql`SELEC`)),
        )
        yield* sql.withTransaction(sql`INSERT INTO items (name) VALUES ('three')`)
        expect(yield* names(sql)).toEqual(["one", "three"])
      }),
    ),
  )

  it.effect("rows, RETURNING, values and raw results as @effect/sql gives them", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        const returned = yield* sql<{
          id: number
          name: string
        }>`INSERT INTO items (name) VALUES ('a') RETURNING id, name`
        expect(returned).toEqual([{ id: 1, name: "a" }])
        const raw = (yield* sql`INSERT INTO items (name) VALUES ('b')`.raw) as { changes: number }
        expect(raw.changes).toBe(1)
        expect(yield* sql`SELECT id, name FROM items ORDER BY id`.values).toEqual([
          [1, "a"],
          [2, "b"],
        ])
        // The same statement afterwards still gives objects (the values mode is not left on).
        expect(yield* sql`SELECT id, name FROM items ORDER BY id`).toEqual([
          { id: 1, name: "a" },
          { id: 2, name: "b" },
        ])
        const big = yield* Effect.provideService(sql`SELECT 9007199254740993 AS n`, SqlClient.SafeIntegers, true)
        expect(big).toEqual([{ n: 9007199254740993n }])
        expect(yield* sql`SELECT 1 AS n`).toEqual([{ n: 1 }])
      }),
    ),
  )

  it.effect("more distinct statements than it keeps prepared still run", () =>
    withDatabase((sql) =>
      Effect.gen(function* () {
        for (let n = 0; n < 250; n++) yield* sql.unsafe(`INSERT INTO items (name) VALUES ('n${n}')`)
        for (let n = 0; n < 250; n += 50) {
          expect(yield* sql.unsafe<{ name: string }>(`SELECT name FROM items WHERE name = 'n${n}'`)).toEqual([
            { name: `n${n}` },
          ])
        }
        expect((yield* names(sql)).length).toBe(250)
      }),
    ),
  )
})

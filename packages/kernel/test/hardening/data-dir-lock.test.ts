import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as SqliteStorage from "../../src/storage/SqliteStorage.js"
import { tempDirectory } from "../support/files.js"

/** Issue 9, items 11 and 7: one process per data directory; database files private. */

const open = (filename: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const exit = yield* Effect.exit(Layer.buildWithScope(SqliteStorage.layer({ filename }), scope))
    return { exit, close: Scope.close(scope, Exit.void) }
  })

const modeOf = (file: string) => Fs.statSync(file).mode & 0o777

describe("data directory lock", () => {
  it.scoped("a second storage on the same database fails at once, naming the directory and the holder", () =>
    Effect.gen(function* () {
      const directory = yield* tempDirectory
      const filename = Path.join(directory, "aide.db")
      const first = yield* open(filename)
      expect(Exit.isSuccess(first.exit)).toBe(true)
      const second = yield* open(filename)
      expect(Exit.isFailure(second.exit)).toBe(true)
      const message = Exit.isFailure(second.exit) ? JSON.stringify(second.exit.cause) : ""
      expect(message).toContain(`the data directory ${directory} is in use by another Aide process (pid ${process.pid}`)
      yield* first.close
      // Released with the layer: the next one opens, and sees what the first stored.
      const third = yield* open(filename)
      expect(Exit.isSuccess(third.exit)).toBe(true)
      yield* third.close
    }),
  )

  it.scoped("the database, its -wal and -shm, the lock and holder files are 0600, a created directory 0700", () =>
    Effect.gen(function* () {
      const directory = Path.join(yield* tempDirectory, "data")
      const filename = Path.join(directory, "aide.db")
      const storage = yield* open(filename)
      expect(Exit.isSuccess(storage.exit)).toBe(true)
      if (Exit.isSuccess(storage.exit)) {
        const sql = Context.get(storage.exit.value, SqlClient.SqlClient)
        yield* sql`CREATE TABLE t (x TEXT)`
        yield* sql`INSERT INTO t (x) VALUES (${"secret"})`
      }
      expect(modeOf(directory)).toBe(0o700)
      for (const file of ["aide.db", "aide.db-wal", "aide.db-shm", "aide.db.lock", "aide.db.pid"]) {
        expect([file, modeOf(Path.join(directory, file))]).toEqual([file, 0o600])
      }
      yield* storage.close
    }),
  )
})

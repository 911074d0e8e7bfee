import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { type DatabasePool, layerSingle } from "./DatabasePool.js"
import * as DataDirLock from "./DataDirLock.js"
import { sqliteClient } from "./internal/sqliteDriver.js"
import { StorageError } from "./StorageError.js"

export interface SqliteStorageOptions {
  /**
   * Database file; its directory is created if missing (0700), the file itself 0600. Locked for
   * the life of the layer: a second process (or layer) on the same file fails at once
   * (`DataDirLock`). `:memory:` for a throwaway database.
   */
  readonly filename: string
}

/**
 * The directory (0700: it holds password and token hashes, MCP header secrets and OAuth
 * tokens), the lock, and the database file created 0600 before SQLite opens it: SQLite gives
 * its `-wal` and `-shm` files the mode of the database file.
 */
const prepareFile = (filename: string) =>
  Effect.gen(function* () {
    yield* Effect.try({
      try: () => Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true, mode: 0o700 }),
      catch: (cause) => new StorageError({ message: `cannot create the directory of ${filename}`, cause }),
    })
    yield* DataDirLock.acquire(filename)
    const mode = yield* Effect.try({
      try: () => {
        DataDirLock.createPrivate(filename)
        return Fs.statSync(filename).mode & 0o777
      },
      catch: (cause) => new StorageError({ message: `cannot create the database file ${filename}`, cause }),
    })
    // An existing file keeps the mode its owner gave it (maybe on purpose), but not silently.
    if ((mode & 0o077) !== 0) {
      yield* Effect.logWarning(
        `${filename} is readable by other users (mode ${mode.toString(8)}); it holds secrets: chmod 600 it`,
      )
    }
  })

const prepare = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // WAL is set by the client; NORMAL sync is durable under WAL against process crashes.
  yield* sql.unsafe("PRAGMA foreign_keys = ON")
  yield* sql.unsafe("PRAGMA synchronous = NORMAL")
  yield* sql.unsafe("PRAGMA busy_timeout = 5000")
}).pipe(Effect.mapError((cause) => new StorageError({ message: "preparing the SQLite database failed", cause })))

/**
 * The embedded default: one SQLite file (WAL, foreign keys on). Provides `SqlClient`: the
 * connection and its settings only (and `DatabasePool`: one connection); the SQL stores migrate
 * the schema they need themselves.
 */
export const layer = (options: SqliteStorageOptions): Layer.Layer<SqlClient.SqlClient | DatabasePool, StorageError> => {
  // The lock is taken first and released last: the database closes before another process may open it.
  // The driver loads first (an optional peer: missing, the error names the install command).
  const client = Layer.unwrapScoped(
    Effect.gen(function* () {
      const SqliteClient = yield* sqliteClient("SqliteStorage")
      if (options.filename !== ":memory:") yield* prepareFile(options.filename)
      return SqliteClient.layer({ filename: options.filename })
    }),
  )
  return Layer.effectDiscard(prepare).pipe(
    Layer.provideMerge(client),
    Layer.merge(layerSingle),
    Layer.mapError((cause) =>
      cause._tag === "StorageError"
        ? cause
        : new StorageError({ message: "opening the SQLite database failed", cause }),
    ),
  )
}

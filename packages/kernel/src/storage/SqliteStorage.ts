import * as Fs from "node:fs"
import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer } from "effect"
import * as Migrations from "./migrations.js"
import { StorageError } from "./StorageError.js"

export interface SqliteStorageOptions {
  /** Database file; its directory is created if missing. `:memory:` for a throwaway database. */
  readonly filename: string
}

const ensureDirectory = (filename: string) =>
  filename === ":memory:"
    ? Effect.void
    : Effect.try({
        try: () => {
          // A directory we create is private (0700): it holds password and token hashes.
          Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true, mode: 0o700 })
        },
        catch: (cause) => new StorageError({ message: `cannot create the directory of ${filename}`, cause }),
      })

const prepare = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // WAL is set by the client; NORMAL sync is durable under WAL against process crashes.
  yield* sql.unsafe("PRAGMA foreign_keys = ON")
  yield* sql.unsafe("PRAGMA synchronous = NORMAL")
  yield* sql.unsafe("PRAGMA busy_timeout = 5000")
  yield* Migrations.run
}).pipe(Effect.mapError((cause) => new StorageError({ message: "preparing the SQLite database failed", cause })))

/**
 * The embedded default: one SQLite file (WAL, foreign keys on), migrated at start.
 * Provides `SqlClient` to every repository of the kernel.
 */
export const layer = (options: SqliteStorageOptions): Layer.Layer<SqlClient.SqlClient, StorageError> => {
  const client = Layer.unwrapEffect(
    Effect.as(ensureDirectory(options.filename), SqliteClient.layer({ filename: options.filename })),
  )
  return Layer.effectDiscard(prepare).pipe(
    Layer.provideMerge(client),
    Layer.mapError((cause) =>
      cause._tag === "StorageError"
        ? cause
        : new StorageError({ message: "opening the SQLite database failed", cause }),
    ),
  )
}

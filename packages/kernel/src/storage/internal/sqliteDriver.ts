import type * as SqliteNode from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { StorageError } from "../StorageError.js"

/**
 * `@effect/sql-sqlite-node` and the native `better-sqlite3` under it are optional peers of the
 * kernel: an in-memory kernel (a plugin's tests, an embedder with stores of its own) installs and
 * imports neither, so nothing compiles on `npm install`. They load when a SQLite Layer is built.
 */
export const sqlitePeers = "npm i better-sqlite3@^12.6.2 @effect/sql-sqlite-node@^0.53.0"

let loaded: Promise<typeof SqliteNode.SqliteClient> | undefined

const isMissing = (cause: unknown) => {
  const code = (cause as { readonly code?: unknown }).code
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND"
}

/** The SQLite client module, loaded on first use; a missing package fails with the command that installs it. */
export const sqliteClient = (purpose: string): Effect.Effect<typeof SqliteNode.SqliteClient, StorageError> =>
  Effect.tryPromise({
    try: () => {
      loaded ??= import("@effect/sql-sqlite-node").then((module) => module.SqliteClient)
      // A failed load is not cached: installing the packages and retrying works in the same process.
      loaded.catch(() => {
        loaded = undefined
      })
      return loaded
    },
    catch: (cause) =>
      new StorageError({
        message: isMissing(cause)
          ? `${purpose} needs better-sqlite3 and @effect/sql-sqlite-node (optional peers of @aide/kernel), not installed: ${sqlitePeers}`
          : `${purpose}: loading the SQLite driver failed`,
        cause,
      }),
  })

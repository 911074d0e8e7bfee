import * as Path from "node:path"
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import type * as Ids from "../ids/Ids.js"
import * as SqliteStorage from "../storage/SqliteStorage.js"
import type { StorageError } from "../storage/StorageError.js"
import * as SqlStores from "../stores/SqlStores.js"
import type { StoreOptions } from "./KernelOptions.js"
import { KernelOptionsError, requireDataDir } from "./KernelOptionsError.js"

type StoreName = keyof typeof SqlStores.layers

/**
 * The stores of `options`, the SQL ones (`SqlStores.layers`, the one list of stores) on one
 * connection. The connection is opened only when some store is SQL: an embedder replacing them
 * all never touches `dataDir/aide.db`.
 */
export const storesLayer = (options: StoreOptions & { readonly dataDir?: string }, ids: Layer.Layer<Ids.Ids>) => {
  // The SQL index reads the `messages` table of the SQL threads: it goes with them, never alone.
  if (options.threads !== undefined && options.recallIndex === undefined) {
    throw new KernelOptionsError({
      message:
        "Kernel.layer: `threads` was replaced, so give `recallIndex` too (`RecallIndex.layerEmpty` for no semantic recall, or an index over your threads)",
    })
  }
  const names = Object.keys(SqlStores.layers) as ReadonlyArray<StoreName>
  const chosen = names.map((name) => options[name] ?? SqlStores.layers[name])
  // Each entry provides the Tag of its name (the option types say so); the array loses that.
  const stores = Layer.mergeAll(
    ...(chosen as unknown as [Layer.Layer<never, StorageError, SqlClient.SqlClient | Ids.Ids>]),
  ) as Layer.Layer<SqlStores.Stores, StorageError, SqlClient.SqlClient | Ids.Ids>
  // None of them SQL: nothing asks for a connection, so none is opened.
  if (names.every((name) => options[name] !== undefined)) {
    return Layer.provideMerge(stores as Layer.Layer<SqlStores.Stores, StorageError, Ids.Ids>, ids)
  }
  const storage =
    options.storage ??
    SqliteStorage.layer({
      filename: Path.join(
        requireDataDir(options.dataDir, "the SQLite database", "`storage`, or a Layer for every store"),
        "aide.db",
      ),
    })
  return Layer.provideMerge(stores, Layer.merge(storage, ids))
}

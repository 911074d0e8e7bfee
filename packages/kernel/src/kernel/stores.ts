import * as Path from "node:path"
import { Layer } from "effect"
import type * as Ids from "../ids/Ids.js"
import * as SqliteStorage from "../storage/SqliteStorage.js"
import { catalog } from "../stores/Stores.js"
import type { StoreOptions } from "./KernelOptions.js"
import { KernelOptionsError, requireDataDir } from "./KernelOptionsError.js"

/** Where the stores not given in the options come from: SQL on `storage`, or this process's memory. */
export type StoreDefaults = "sql" | "memory"

/**
 * The stores of `options`, each default from `Stores.catalog`. The SQL connection is opened only
 * when some store is SQL: an embedder replacing them all never touches `dataDir/aide.db`.
 */
export const storesLayer = (
  options: StoreOptions & { readonly dataDir?: string | undefined },
  ids: Layer.Layer<Ids.Ids>,
  defaults: StoreDefaults,
) => {
  // None of them SQL: nothing asks for a connection, so none is opened.
  if (defaults === "memory" || catalog.names.every((name) => options[name] !== undefined)) {
    return Layer.provideMerge(catalog.overMemory(options), ids)
  }
  // The SQL index reads the `messages` table of the SQL threads: it goes with them, never alone.
  if (options.threads !== undefined && options.recallIndex === undefined) {
    throw new KernelOptionsError({
      message:
        "Kernel.layer: `threads` was replaced, so give `recallIndex` too (`RecallIndex.layerEmpty` for no semantic recall, or an index over your threads)",
    })
  }
  const storage =
    options.storage ??
    SqliteStorage.layer({
      filename: Path.join(
        requireDataDir(options.dataDir, "the SQLite database", "`storage`, or a Layer for every store"),
        "aide.db",
      ),
    })
  return Layer.provideMerge(catalog.overSql(options), Layer.merge(storage, ids))
}

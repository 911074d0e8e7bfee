import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Effect, Layer } from "effect"
import * as SqliteStorage from "../../src/storage/SqliteStorage.js"
import { SqlMigrations } from "../../src/storage/SqlMigrations.js"

/** An empty directory of its own, removed with everything in it when the scope closes. */
export const tempDirectory = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "aide-kernel-test-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })),
)

/** `SqliteStorage` (migrated) on a file in a temporary directory, removed when the layer is released. */
export const tempSqliteStorageLayer = Layer.unwrapScoped(
  Effect.map(tempDirectory, (directory) =>
    Layer.provideMerge(SqlMigrations, SqliteStorage.layer({ filename: Path.join(directory, "aide.db") })),
  ),
)

import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { DataDirLock } from "@aide/kernel/internal"
import { Effect, type Scope } from "effect"

const idPattern = /^[0-9a-f-]{36}$/

/**
 * This server's lasting name among replicas on one PostgreSQL database: a UUID kept in
 * `<dataDir>/replica-id`, valid while this process holds `<dataDir>/replica.lock` (the same OS
 * file lock as SQLite's data directory lock, released on any exit, `kill -9` included). After a
 * crash the restarted server finds its own thread claims under this name and releases them, so
 * its threads answer at once instead of being busy until the claims expire.
 *
 * `undefined` when the directory cannot be locked (another server uses it, or it is read-only):
 * the server then runs under a fresh name each start, as before, and nothing is refused.
 */
export const replicaIdentity = (dataDir: string): Effect.Effect<string | undefined, never, Scope.Scope> =>
  Effect.gen(function* () {
    yield* Effect.sync(() => Fs.mkdirSync(dataDir, { recursive: true }))
    yield* DataDirLock.acquire(Path.join(dataDir, "replica"))
    const file = Path.join(dataDir, "replica-id")
    return yield* Effect.sync(() => {
      const stored = Fs.existsSync(file) ? Fs.readFileSync(file, "utf8").trim() : ""
      if (idPattern.test(stored)) return stored
      const id = Crypto.randomUUID()
      Fs.writeFileSync(file, `${id}\n`, { mode: 0o600 })
      return id
    })
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logInfo("replicas: no lasting replica name (the data directory cannot be locked)").pipe(
          Effect.annotateLogs({ cause: String(cause).split("\n")[0] }),
        ),
        undefined,
      ),
    ),
  )

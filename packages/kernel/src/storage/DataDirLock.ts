import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Clock, Effect, type Scope } from "effect"
import { sqliteClient } from "./internal/sqliteDriver.js"
import { StorageError } from "./StorageError.js"

/**
 * One process per SQLite database: two servers on one data directory would diverge (each keeps
 * the config, revocations and streams in memory) and fail each other's writes.
 *
 * The lock is SQLite's own file lock (fcntl), taken on `<database>.lock` in exclusive locking
 * mode and held until the process closes it or dies: the operating system releases it on any
 * exit, `kill -9` included, so a crash never leaves a stale lock, and no pid guessing is needed.
 * `<database>.pid` names the holder for the refusal message only. Neither file is ever deleted
 * by a holder: a process could otherwise lock a file that a third one recreates.
 */

/** Who holds the lock, as written to `<database>.pid`. */
interface Holder {
  readonly pid: number
  readonly host: string
  readonly startedAt: string
}

const holderFile = (database: string) => `${database}.pid`

const readHolder = (database: string): Holder | undefined => {
  try {
    return JSON.parse(Fs.readFileSync(holderFile(database), "utf8")) as Holder
  } catch {
    return undefined
  }
}

const describeHolder = (holder: Holder | undefined) =>
  holder === undefined
    ? "another process"
    : `another Aide process (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt})`

const isBusy = (error: unknown) => {
  const code = (error as { readonly cause?: { readonly code?: unknown } }).cause?.code
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED"
}

/** A file created private (0600) if missing; an existing one keeps its mode. */
export const createPrivate = (file: string) => Fs.closeSync(Fs.openSync(file, "a", 0o600))

/**
 * Locks the SQLite database `filename` (an absolute or relative path, not `:memory:`) for the
 * life of the scope, or fails at once with a one-line message naming its directory and holder.
 */
export const acquire = (filename: string): Effect.Effect<void, StorageError, Scope.Scope> =>
  Effect.gen(function* () {
    const database = Path.resolve(filename)
    const directory = Path.dirname(database)
    const lockFile = `${database}.lock`
    const cannotLock = (cause: unknown) =>
      new StorageError({ message: `cannot lock the data directory ${directory} (${lockFile})`, cause })
    yield* Effect.try({ try: () => createPrivate(lockFile), catch: cannotLock })
    const SqliteClient = yield* sqliteClient("the SQLite data directory's lock")
    // Closed with the scope, which releases the lock.
    const sql = yield* SqliteClient.make({ filename: lockFile, disableWAL: true }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError(cannotLock),
    )
    yield* Effect.gen(function* () {
      // Fail at once instead of waiting for the holder; no journal file next to the lock (OFF
      // is refused in better-sqlite3's defensive mode, MEMORY is not).
      yield* sql.unsafe("PRAGMA busy_timeout = 0")
      yield* sql.unsafe("PRAGMA journal_mode = MEMORY")
      // In exclusive locking mode, the lock the first write transaction takes is kept until close.
      yield* sql.unsafe("PRAGMA locking_mode = EXCLUSIVE")
      yield* sql.unsafe("BEGIN EXCLUSIVE")
      yield* sql.unsafe("COMMIT")
    }).pipe(
      Effect.mapError((error) =>
        isBusy(error)
          ? new StorageError({
              message: `the data directory ${directory} is in use by ${describeHolder(readHolder(database))}: stop it, or use another data directory`,
            })
          : cannotLock(error),
      ),
    )
    const holder: Holder = {
      pid: process.pid,
      host: Os.hostname(),
      startedAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
    }
    // Written aside and renamed into place: a refused process never reads it half-written.
    yield* Effect.try({
      try: () => {
        const temporary = `${holderFile(database)}.${process.pid}.tmp`
        Fs.writeFileSync(temporary, JSON.stringify(holder), { mode: 0o600 })
        Fs.renameSync(temporary, holderFile(database))
      },
      catch: cannotLock,
    })
  })

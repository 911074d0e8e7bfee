import { closeSync, openSync } from "node:fs"
import { createRequire } from "node:module"

/** The part of better-sqlite3 the CLI uses (no @types package in the workspace). */
export interface Database {
  prepare(sql: string): { get(...params: Array<unknown>): any; all(...params: Array<unknown>): Array<any> }
  pragma(source: string, options?: { simple?: boolean }): unknown
  exec(sql: string): void
  backup(
    destination: string,
    options?: { progress?: (info: { totalPages: number; remainingPages: number }) => number },
  ): Promise<unknown>
  close(): void
}

type DatabaseConstructor = new (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => Database

/** better-sqlite3, loaded on first use: only backup, restore and doctor need the native module. */
export const openDatabase = (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => {
  const Database = createRequire(import.meta.url)("better-sqlite3") as DatabaseConstructor
  return new Database(filename, options)
}

/**
 * The highest migration the kernel's stores ship (their `*Schema.ts` files number theirs in one
 * sequence; a test keeps them equal).
 */
export const latestMigration = 20

/**
 * The schema version of a database: the highest migration applied by the kernel's stores
 * (`aide_schema_migrations`, namespaces `aide.*`), or by release 0.1 (`aide_migrations`).
 * Throws when the database has neither table (not an Aide database).
 */
export const schemaVersion = (db: Database): number | null => {
  const tables = new Set(
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('aide_schema_migrations', 'aide_migrations')",
      )
      .all()
      .map((row: { name: string }) => row.name),
  )
  if (tables.size === 0) throw new Error("no aide_schema_migrations table")
  const ids: Array<number | null> = []
  if (tables.has("aide_schema_migrations"))
    ids.push(
      db.prepare("SELECT max(migration_id) AS id FROM aide_schema_migrations WHERE schema_name LIKE 'aide.%'").get().id,
    )
  if (tables.has("aide_migrations"))
    ids.push(db.prepare("SELECT max(migration_id) AS id FROM aide_migrations").get().id)
  const known = ids.filter((id): id is number => id !== null)
  return known.length === 0 ? null : Math.max(...known)
}

/**
 * Whether a server holds the data directory: the kernel keeps SQLite's exclusive lock on
 * `aide.db.lock` while it runs (DataDirLock.ts). Trying that same lock is the one reliable test
 * (no pid guessing); the caller holds it until `release`, so no server starts meanwhile.
 */
export const tryLock = (
  database: string,
): { readonly held: false } | { readonly held: true; readonly release: () => void } => {
  // Created private first, as the kernel creates it: SQLite would give it the umask's mode.
  closeSync(openSync(`${database}.lock`, "a", 0o600))
  const lock = openDatabase(`${database}.lock`, { timeout: 0 })
  try {
    lock.pragma("journal_mode = MEMORY")
    lock.pragma("locking_mode = EXCLUSIVE")
    lock.exec("BEGIN EXCLUSIVE")
    lock.exec("COMMIT")
    return { held: true, release: () => lock.close() }
  } catch (error) {
    lock.close()
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return { held: false }
    throw error
  }
}

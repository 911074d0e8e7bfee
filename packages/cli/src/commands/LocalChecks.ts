import { existsSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { green, red, yellow } from "../Output.js"
import { latestMigration, openDatabase, schemaVersion, tryLock } from "../Sqlite.js"

/** The checks of `aide doctor` made on this machine: the data directory, the database, the port. */

export interface Check {
  readonly name: string
  readonly ok: boolean
  /** The check did not run (not logged in, a server on another machine): not ok, yet not a failure. */
  readonly skipped?: true
  readonly detail: string
  /** What to do about a failed check. */
  readonly fix?: string
}

/** A check that did not run, with what would run it: never shown as passed. */
export const skipped = (name: string, detail: string, fix: string): Check => ({
  name,
  ok: false,
  skipped: true,
  detail,
  fix,
})

/** ✓ passed, ✗ failed, – not run (a distinct mark, so a check that did not run never reads as passed). */
export const markOf = (check: Check) => (check.ok ? green("✓") : check.skipped ? yellow("–") : red("✗"))

const modeOf = (path: string) => statSync(path).mode & 0o777
const octal = (mode: number) => mode.toString(8).padStart(3, "0")

export const dataDirChecks = (dataDir: string): Array<Check> => {
  if (!existsSync(dataDir))
    return [
      {
        name: "data directory",
        ok: false,
        detail: `${dataDir} does not exist`,
        fix: "start the server once (aide start), or point AIDE_DATA_DIR / --data-dir at it",
      },
    ]
  const checks: Array<Check> = []
  const mode = modeOf(dataDir)
  checks.push(
    (mode & 0o077) === 0
      ? { name: "data directory", ok: true, detail: `${dataDir} (mode ${octal(mode)})` }
      : {
          name: "data directory",
          ok: false,
          detail: `${dataDir} is open to other users (mode ${octal(mode)})`,
          fix: `chmod 700 ${dataDir} && chmod 600 ${dataDir}/*`,
        },
  )
  if (process.env.DATABASE_URL) {
    checks.push({ name: "database", ok: true, detail: "PostgreSQL (DATABASE_URL): migrated by the server at start" })
    return checks
  }
  const database = join(dataDir, "aide.db")
  if (!existsSync(database)) {
    checks.push({ name: "database", ok: false, detail: `no ${database}`, fix: "start the server once (aide start)" })
    return checks
  }
  const dbMode = modeOf(database)
  if ((dbMode & 0o077) !== 0)
    checks.push({
      name: "database rights",
      ok: false,
      detail: `${database} is readable by other users (mode ${octal(dbMode)})`,
      fix: `chmod 600 ${dataDir}/*`,
    })
  try {
    const db = openDatabase(database, { readonly: true, fileMustExist: true, timeout: 2_000 })
    try {
      const id = schemaVersion(db)
      checks.push(
        id === latestMigration
          ? { name: "database", ok: true, detail: `${database} reachable, migrated (${id})` }
          : id !== null && id > latestMigration
            ? {
                name: "database",
                ok: false,
                detail: `migrated by a newer Aide (${id} > ${latestMigration})`,
                fix: "upgrade this Aide",
              }
            : {
                name: "database",
                ok: false,
                detail: `not fully migrated (${id ?? "none"} of ${latestMigration})`,
                fix: "start the server (aide start): it migrates at start",
              },
      )
    } finally {
      db.close()
    }
  } catch (error) {
    checks.push({
      name: "database",
      ok: false,
      detail: `cannot read ${database}: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check the file's owner and rights, or restore a backup (aide restore)",
    })
  }
  return checks
}

/** Whether `port` can be bound on `host`; when it cannot, whether an Aide server answers there. */
export const portCheck = async (host: string, port: number): Promise<Check> => {
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, host, () => server.close(() => resolve(true)))
  })
  if (free) return { name: "port", ok: true, detail: `${host}:${port} is free` }
  const aide = await fetch(`http://${host}:${port}/`, { signal: AbortSignal.timeout(2_000) })
    .then(async (response) => ((await response.json()) as { name?: string }).name === "aide")
    .catch(() => false)
  return aide
    ? { name: "port", ok: true, detail: `${host}:${port} is taken by a running Aide server` }
    : {
        name: "port",
        ok: false,
        detail: `${host}:${port} is taken by another program`,
        fix: `stop it, or start Aide on another port (PORT=4112 aide start)`,
      }
}

/**
 * Whether the data directory checked is the running server's: when the server at `url` (on this
 * machine) answers yet nobody holds the directory's lock, that server keeps its data elsewhere
 * and the other checks looked at the wrong folder. Undefined when it cannot be told.
 */
export const ownerCheck = async (dataDir: string, url: string): Promise<Check | undefined> => {
  const database = join(dataDir, "aide.db")
  if (process.env.DATABASE_URL || !existsSync(database)) return undefined
  const answers = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) })
    .then(async (response) => ((await response.json()) as { name?: string }).name === "aide")
    .catch(() => false)
  if (!answers) return undefined
  try {
    const lock = tryLock(database)
    if (!lock.held) return { name: "data directory in use", ok: true, detail: `a server runs on ${dataDir}` }
    lock.release()
  } catch {
    return undefined
  }
  return {
    name: "data directory in use",
    ok: false,
    detail: `${url} answers, but no server runs on ${dataDir}: that server keeps its data elsewhere`,
    fix: "pass --data-dir with the AIDE_DATA_DIR it was started with (aide start records it by itself)",
  }
}

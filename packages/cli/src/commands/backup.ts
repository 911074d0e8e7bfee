import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { dataDirFor } from "../LocalServers.js"
import { Failure, print, printJson, progress, UsageError } from "../Output.js"
import { latestMigration, openDatabase, schemaVersion, tryLock } from "../Sqlite.js"

const postgresHelp = (verb: "backup" | "restore", file: string) =>
  verb === "backup"
    ? `DATABASE_URL is set: Aide is on PostgreSQL, which backs itself up while the servers run:

  pg_dump --format=custom --file=${file} "$DATABASE_URL"

(docs/operations.md, "Backups").`
    : `DATABASE_URL is set: Aide is on PostgreSQL. Stop every replica, then:

  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ${file}

(docs/operations.md, "Backups").`

const databaseOf = (dataDir: string) => join(dataDir, "aide.db")

export const backup: Command = {
  name: "backup",
  summary: "copy the SQLite database to a file, while the server runs",
  usage: `aide backup <file> [--data-dir <dir>] [--url <url>] [--json]

Copies <dataDir>/aide.db into <file> with SQLite's online backup: safe while the server runs
(writes made meanwhile are included or the copy restarts). The file is created 0600. With
DATABASE_URL set (PostgreSQL) it prints the pg_dump command to run instead.

  --data-dir <dir>   the data directory (default: AIDE_DATA_DIR, else the one \`aide start\`
                     recorded for the server \`aide login\` chose or --url names, else ./.aide)
  --json             print { file, bytes, pages, migration, dataDir } when done`,
  run: async (argv) => {
    const { values, positionals } = parse(argv, {}, 1)
    const file = positionals[0]
    if (file === undefined) throw new UsageError("which file? aide backup <file>")
    if (process.env.DATABASE_URL) {
      print(postgresHelp("backup", file))
      return 0
    }
    const server = Credentials.serverUrl(values.url)
    const dataDir = dataDirFor(values["data-dir"], server)
    if (!dataDir.local)
      throw new Failure(
        `${server} is on another machine: run aide backup there, or pass --data-dir for a data directory on this one`,
      )
    const database = databaseOf(dataDir.dir)
    if (!existsSync(database))
      throw new Failure(
        `no database at ${database} (${dataDir.source}): pass --data-dir with the server's AIDE_DATA_DIR`,
      )
    const target = resolve(file)
    // Written aside and renamed into place: an interrupted backup never leaves a half file under the name.
    const partial = `${target}.partial`
    const step = progress(`backing up ${database} (${dataDir.source})`)
    const source = openDatabase(database, { readonly: true, fileMustExist: true, timeout: 5_000 })
    try {
      let pages = 0
      await source.backup(partial, {
        progress: ({ totalPages, remainingPages }) => {
          pages = totalPages
          step.update(`${totalPages - remainingPages}/${totalPages} pages`)
          return 100
        },
      })
      chmodSync(partial, 0o600)
      renameSync(partial, target)
      const copy = openDatabase(target, { readonly: true, fileMustExist: true })
      const migration = schemaVersion(copy)
      copy.close()
      step.done(`backed up to ${target}`)
      if (values.json) printJson({ file: target, bytes: statSync(target).size, pages, migration, dataDir: dataDir.dir })
      return 0
    } catch (error) {
      step.fail()
      rmSync(partial, { force: true })
      throw new Failure(`the backup failed: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      source.close()
    }
  },
}

export const restore: Command = {
  name: "restore",
  summary: "replace the SQLite database with a backup (the server must be stopped)",
  usage: `aide restore <file> [--data-dir <dir>]

Replaces <dataDir>/aide.db with <file>, a backup made by \`aide backup\`. Refused while a server
runs on the data directory (exit 1): stop it first. The database it replaces is kept as
aide.db.before-restore. With DATABASE_URL set (PostgreSQL) it prints the pg_restore command.

  --data-dir <dir>   the data directory (default: as for aide backup)`,
  run: async (argv) => {
    const { values, positionals } = parse(argv, {}, 1)
    const file = positionals[0]
    if (file === undefined) throw new UsageError("which file? aide restore <file>")
    if (process.env.DATABASE_URL) {
      print(postgresHelp("restore", file))
      return 0
    }
    const source = resolve(file)
    if (!existsSync(source)) throw new Failure(`no such file: ${source}`)
    let migration: number
    try {
      const copy = openDatabase(source, { readonly: true, fileMustExist: true })
      migration = schemaVersion(copy) ?? 0
      copy.close()
    } catch {
      throw new Failure(`${source} is not an Aide backup (no migrations table in a SQLite database)`)
    }
    if (migration > latestMigration)
      throw new Failure(
        `${source} comes from a newer Aide (migration ${migration} > ${latestMigration}): upgrade first`,
      )
    const chosen = dataDirFor(values["data-dir"], Credentials.serverUrl(values.url))
    const dataDir = chosen.dir
    if (!existsSync(dataDir)) throw new Failure(`no data directory at ${dataDir} (${chosen.source})`)
    const database = databaseOf(dataDir)
    const lock = tryLock(database)
    if (!lock.held)
      throw new Failure(`a server is running on ${dataDir}: stop it first (restore replaces its database)`)
    const step = progress(`restoring ${source}`)
    try {
      if (existsSync(database)) renameSync(database, `${database}.before-restore`)
      // The old write-ahead log belongs to the old database: replaying it over the backup would corrupt it.
      for (const suffix of ["-wal", "-shm"]) rmSync(`${database}${suffix}`, { force: true })
      copyFileSync(source, `${database}.restoring`)
      chmodSync(`${database}.restoring`, 0o600)
      renameSync(`${database}.restoring`, database)
      step.done(`restored into ${database} (the previous one is aide.db.before-restore)`)
      return 0
    } finally {
      lock.release()
    }
  },
}

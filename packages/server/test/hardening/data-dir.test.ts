import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type AideProcess, ensureBuilt, exitWithin, killAll, spawnServer, startServer } from "../support/process.js"
import { password, request } from "../support/server.js"

/**
 * Issue 9, items 11 and 1, against the real process: one server per data directory (a crash
 * never leaves it locked), and no stored config, however broken, keeps the server down.
 */

const dataDirs: Array<string> = []
beforeAll(ensureBuilt, 300_000)
afterEach(killAll)
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-data-dir-"))
  dataDirs.push(dir)
  return dir
}

const killed = async (server: AideProcess) => {
  server.child.kill("SIGKILL")
  expect((await server.exited).signal).toBe("SIGKILL")
}

const stopped = async (server: AideProcess) => {
  server.child.kill("SIGTERM")
  expect((await exitWithin(server, 15_000)).code).toBe(0)
}

/** Writes `text` as the stored config row, as a hand edit (or an old release) would. */
const poisonConfig = (dataDir: string, text: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE app_config SET document = ${text} WHERE id = 1`
  }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dataDir, "aide.db") })), Effect.runPromise)

describe("one server per data directory", () => {
  it("a second server on the same data directory exits at once, naming the directory and the holder's pid", async () => {
    const dataDir = newDataDir()
    const first = await startServer({ AIDE_DATA_DIR: dataDir })
    const second = spawnServer({ AIDE_DATA_DIR: dataDir })
    expect((await exitWithin(second, 15_000)).code).not.toBe(0)
    const output = [...second.stdout, ...second.stderr].join("\n")
    expect(output).toContain(`the data directory ${dataDir} is in use by another Aide process (pid ${first.child.pid}`)
    // The first one is unaffected.
    expect((await fetch(`${first.url}/`)).status).toBe(200)
    await stopped(first)
  }, 60_000)

  it("a fresh data directory is private: the directory 0700, the database files and the secret 0600", async () => {
    const dataDir = join(newDataDir(), "data")
    const server = await startServer({ AIDE_DATA_DIR: dataDir })
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const files = ["aide.db", "aide.db-wal", "aide.db-shm", "jwt-secret", "aide.db.lock", "aide.db.pid"]
    expect(files.map((file) => [file, statSync(join(dataDir, file)).mode & 0o777])).toEqual(
      files.map((file) => [file, 0o600]),
    )
    await stopped(server)
  }, 60_000)

  it("a server killed with SIGKILL leaves no lock behind: the next one starts", async () => {
    const dataDir = newDataDir()
    const first = await startServer({ AIDE_DATA_DIR: dataDir })
    const setup = await request(`${first.url}/api/auth/setup`, { body: { password } })
    expect(setup.status).toBe(201)
    await killed(first)
    const next = await startServer({ AIDE_DATA_DIR: dataDir })
    const login = await request(`${next.url}/api/auth/login`, { body: { password } })
    expect(login.status).toBe(200)
    await stopped(next)
  }, 60_000)
})

describe("a stored config the server cannot use", () => {
  it("a config row nested 4,000 levels deep: the server starts on defaults, logs it, and PATCH works", async () => {
    const dataDir = newDataDir()
    const first = await startServer({ AIDE_DATA_DIR: dataDir })
    const setup = await request(`${first.url}/api/auth/setup`, { body: { password } })
    const token = setup.body.token as string
    await stopped(first)

    let deep: unknown = 1
    for (let level = 0; level < 4_000; level++) deep = { a: deep }
    await poisonConfig(dataDir, JSON.stringify({ timezone: "Europe/Paris", plugins: { p: deep } }))

    const server = await startServer({ AIDE_DATA_DIR: dataDir })
    const rejected = await server.logged(
      "stored config rejected: what failed uses its defaults until the next config change replaces it; the stored text is kept in table config_rejected",
    )
    expect(rejected.logLevel).toBe("ERROR")
    const read = await request(`${server.url}/api/config`, { token })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ timezone: "Europe/Paris", plugins: {} })
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { plugins: { weather: { enabled: true } } },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ timezone: "Europe/Paris", plugins: { weather: { enabled: true } } })
    await stopped(server)
  }, 90_000)
})

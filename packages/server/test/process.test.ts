import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import * as Jose from "jose"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type AideProcess, ensureBuilt, exitWithin, killAll, spawnServer, startServer } from "./support/process.js"
import { password, request } from "./support/server.js"

/** A loopback port nothing listens on (the kernel's pick for port 0, released). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** Resolves once `url` answers; fails if the process exits first. */
const answering = async (url: string, server: AideProcess) => {
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null)
      throw new Error(`exited before answering:\n${[...server.stdout, ...server.stderr].join("\n")}`)
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * A login whose request is already being handled: headers and half the body are sent now,
 * the rest when `finish` is called.
 */
const startLogin = (url: string) => {
  const body = Buffer.from(JSON.stringify({ password }))
  const req = Http.request(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(body.length) },
  })
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on("error", reject)
    req.on("response", (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }))
      res.on("error", reject)
    })
  })
  req.write(body.subarray(0, 10))
  return { response, finish: () => req.end(body.subarray(10)) }
}

const isJsonLogLine = (line: string) => {
  try {
    const parsed = JSON.parse(line)
    return (
      typeof parsed.message !== "undefined" &&
      typeof parsed.logLevel === "string" &&
      !Number.isNaN(Date.parse(parsed.timestamp))
    )
  } catch {
    return false
  }
}

const dataDirs: Array<string> = []
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-process-"))
  dataDirs.push(dir)
  return dir
}

describe("the aide-server process", () => {
  beforeAll(ensureBuilt, 300_000)
  afterEach(killAll)
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })

  it("listens on a free port with PORT=0, says where in a JSON log line, and answers GET /", async () => {
    const dataDir = newDataDir()
    const server = await startServer({ AIDE_DATA_DIR: dataDir })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.url).not.toMatch(/:0$/)
    const status = await request(server.url)
    expect(status.status).toBe(200)
    expect(status.body).toMatchObject({ name: "aide", runtime: "node", auth: { setup: false, authenticated: false } })
    server.child.kill("SIGTERM")
    expect(await exitWithin(server, 5_000)).toEqual({ code: 0, signal: null })
  })

  it("writes its logs as JSON lines, one object per line", async () => {
    const server = await startServer({ AIDE_DATA_DIR: newDataDir() })
    await request(`${server.url}/api/auth/setup`, { body: { password } })
    await request(`${server.url}/no-such-route`)
    server.child.kill("SIGTERM")
    await exitWithin(server, 5_000)
    const lines = server.stdout.filter((line) => line !== "")
    expect(lines.length).toBeGreaterThanOrEqual(2)
    expect(lines.filter((line) => !isJsonLogLine(line))).toEqual([])
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(
      expect.arrayContaining(["listening", "shutting down"]),
    )
  })

  it("creates <dataDir>/jwt-secret readable by its owner only (mode 0600), holding 256 bits as base64url", async () => {
    const dataDir = newDataDir()
    const server = await startServer({ AIDE_DATA_DIR: dataDir })
    const file = join(dataDir, "jwt-secret")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const text = readFileSync(file, "utf8").trim()
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(Buffer.from(text, "base64url").byteLength).toBeGreaterThanOrEqual(32)
    const tokens = await request(`${server.url}/api/auth/setup`, { body: { password } })
    await expect(Jose.jwtVerify(tokens.body.token, Buffer.from(text, "base64url"))).resolves.toBeDefined()
    server.child.kill("SIGTERM")
    await exitWithin(server, 5_000)
  })

  it("refuses to start with an AIDE_JWT_SECRET shorter than 32 bytes: a clear message and a non-zero exit", async () => {
    const dataDir = newDataDir()
    const server = spawnServer({ AIDE_DATA_DIR: dataDir, AIDE_JWT_SECRET: "too-short-a-secret" })
    const exit = await exitWithin(server, 10_000)
    expect(exit.code).not.toBe(0)
    expect(exit.code).not.toBeNull()
    const output = [...server.stdout, ...server.stderr].join("\n")
    expect(output).not.toContain("too-short-a-secret")
    // One human line on stderr first, then the detail logged like everything else: JSON, at error level.
    expect(server.stderr.filter((line) => line !== "")).toEqual([
      expect.stringMatching(/^aide-server: could not start: .*at least 32 bytes/),
    ])
    const lines = server.stdout.filter((line) => line !== "")
    expect(lines.filter((line) => !isJsonLogLine(line))).toEqual([])
    const errors = lines.map((line) => JSON.parse(line)).filter((line) => /ERROR|FATAL/.test(line.logLevel))
    expect(errors.map((line) => JSON.stringify(line)).join("\n")).toMatch(/at least 32 bytes/)
    expect(server.stdout.some((line) => line.includes('"listening"'))).toBe(false)
    // No silent fallback to a generated secret.
    expect(existsSync(join(dataDir, "jwt-secret"))).toBe(false)
  })

  it("accepts AIDE_LOG_LEVEL in any case (debug, DEBUG, warn) and refuses an unknown level with a message", async () => {
    const debug = await startServer({ AIDE_DATA_DIR: newDataDir(), AIDE_LOG_LEVEL: "DEBUG" })
    expect(debug.stdout.some((line) => line.includes('"logLevel":"DEBUG"'))).toBe(true)
    debug.child.kill("SIGTERM")
    expect(await exitWithin(debug, 5_000)).toEqual({ code: 0, signal: null })
    // At warn it logs no "listening" line: on a port chosen here, it is up once it answers there
    // (a fixed 1.5 s wait sent SIGTERM to a still-starting process on a loaded machine).
    const port = await freePort()
    const warn = spawnServer({ AIDE_DATA_DIR: newDataDir(), AIDE_LOG_LEVEL: "warn", PORT: String(port) })
    await answering(`http://127.0.0.1:${port}/`, warn)
    warn.child.kill("SIGTERM")
    expect(await exitWithin(warn, 5_000)).toEqual({ code: 0, signal: null })
    const loud = spawnServer({ AIDE_DATA_DIR: newDataDir(), AIDE_LOG_LEVEL: "loud" })
    expect((await exitWithin(loud, 10_000)).code).toBe(1)
    expect(loud.stderr.join("\n")).toMatch(/AIDE_LOG_LEVEL="loud" is not a log level/)
  })

  it.each([
    ["not-a-url", /DATABASE_URL is not a URL/],
    ["mysql://user:hunter2@db.example/app", /DATABASE_URL names a mysql database; Aide supports PostgreSQL only/],
  ])("refuses DATABASE_URL=%s with one human line before the JSON detail, never echoing it", async (url, reason) => {
    const server = spawnServer({ AIDE_DATA_DIR: newDataDir(), DATABASE_URL: url })
    expect((await exitWithin(server, 10_000)).code).toBe(1)
    expect(server.stderr.filter((line) => line !== "")).toEqual([expect.stringMatching(reason)])
    expect(server.stdout.filter((line) => line !== "").every(isJsonLogLine)).toBe(true)
    expect([...server.stdout, ...server.stderr].join("\n")).not.toContain("hunter2")
  })

  it("names the port and the setting when the port is in use", async () => {
    const first = await startServer({ AIDE_DATA_DIR: newDataDir() })
    const port = new URL(first.url).port
    const second = spawnServer({ AIDE_DATA_DIR: newDataDir(), PORT: port })
    expect((await exitWithin(second, 10_000)).code).toBe(1)
    expect(second.stderr.filter((line) => line !== "")).toEqual([
      `aide-server: could not start: port ${port} on 127.0.0.1 is already in use (set PORT to another port)`,
    ])
    first.child.kill("SIGTERM")
    await exitWithin(first, 5_000)
  })

  it("signs with AIDE_JWT_SECRET when it has 32 bytes or more, and writes no secret file", async () => {
    const dataDir = newDataDir()
    const secret = "an operator-chosen secret of more than 32 bytes"
    const server = await startServer({ AIDE_DATA_DIR: dataDir, AIDE_JWT_SECRET: secret })
    const tokens = await request(`${server.url}/api/auth/setup`, { body: { password } })
    expect(tokens.status).toBe(201)
    await expect(Jose.jwtVerify(tokens.body.token, new TextEncoder().encode(secret))).resolves.toBeDefined()
    expect(existsSync(join(dataDir, "jwt-secret"))).toBe(false)
    expect(server.stdout.join("\n")).not.toContain(secret)
    server.child.kill("SIGTERM")
    await exitWithin(server, 5_000)
  })

  it("on SIGTERM finishes an in-flight login, exits 0 promptly, and leaves the database closed and intact", async () => {
    const dataDir = newDataDir()
    const first = await startServer({ AIDE_DATA_DIR: dataDir })
    const setup = await request(`${first.url}/api/auth/setup`, { body: { password } })
    expect(setup.status).toBe(201)

    const login = startLogin(first.url)
    // Let the server read the headers and start handling the request before the signal.
    await new Promise((resolve) => setTimeout(resolve, 200))
    first.child.kill("SIGTERM")
    await first.logged("shutting down")
    login.finish()
    const answered = await login.response
    expect(answered.status).toBe(200)
    expect(answered.body.token).toEqual(expect.any(String))
    const answeredAt = Date.now()
    expect(await exitWithin(first, 5_000)).toEqual({ code: 0, signal: null })
    expect(Date.now() - answeredAt).toBeLessThan(2_000)
    // SQLite removes the write-ahead log when the last connection closes cleanly.
    expect(existsSync(join(dataDir, "aide.db-wal"))).toBe(false)

    const second = await startServer({ AIDE_DATA_DIR: dataDir })
    expect((await request(second.url)).body.auth.setup).toBe(true)
    expect((await request(`${second.url}/api/auth/login`, { body: { password } })).status).toBe(200)
    // The secret and the sessions outlived the restart: both tokens still open protected routes.
    const sessions = await request(`${second.url}/api/auth/sessions`, { token: answered.body.token })
    expect(sessions.status).toBe(200)
    expect((await request(`${second.url}/api/auth/sessions`, { token: setup.body.token })).status).toBe(200)
    second.child.kill("SIGTERM")
    expect(await exitWithin(second, 5_000)).toEqual({ code: 0, signal: null })
  })

  it("logs an unexpected failure as JSON with the request id sent in X-Request-Id", async () => {
    const dataDir = newDataDir()
    const server = await startServer({ AIDE_DATA_DIR: dataDir })
    await request(`${server.url}/api/auth/setup`, { body: { password } })
    await Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("DROP TABLE auth_owner")
    }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dataDir, "aide.db") })), Effect.runPromise)

    const response = await request(`${server.url}/api/auth/login`, { body: { password } })
    expect(response.status).toBe(500)
    expect(response.body).toEqual({ error: "internal_error" })
    const requestId = response.headers.get("x-request-id")
    expect(requestId).toMatch(/\S/)
    const logged = await server.logged("unexpected failure")
    expect(logged.logLevel).toBe("ERROR")
    expect(logged.annotations).toMatchObject({ requestId, method: "POST", url: "/api/auth/login" })
    server.child.kill("SIGTERM")
    expect(await exitWithin(server, 5_000)).toEqual({ code: 0, signal: null })
  })
})

import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Inbox } from "@aide/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, startChatServer } from "../../server/test/support/chat.js"
import { password, request, setup, startServer, type TestServer } from "../../server/test/support/server.js"
import { latestMigration } from "../src/Sqlite.js"
import { aide, home } from "./support/cli.js"

const commands = [
  "start",
  "setup",
  "login",
  "logout",
  "doctor",
  "chat",
  "threads",
  "inbox",
  "config",
  "mcp",
  "plugin",
  "backup",
  "restore",
]

describe("aide --help", () => {
  it("lists every command and the exit codes", async () => {
    const result = await aide(["--help"])
    expect(result.code).toBe(0)
    for (const name of commands) expect(result.stdout).toContain(`  ${name} `)
    expect(result.stdout).toContain("Exit codes: 0 ok, 1 failure, 2 usage error, 3 not logged in")
  })

  it.each(commands)("aide %s --help prints its usage and exits 0", async (name) => {
    const result = await aide([name, "--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^Usage: aide ${name}`))
  })

  it("an unknown command or option is a usage error (exit 2)", async () => {
    expect((await aide(["frobnicate"])).code).toBe(2)
    const result = await aide(["threads", "--frobnicate"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("--frobnicate")
  })

  it("prints no colour codes when not on a terminal", async () => {
    expect((await aide(["--help"])).stdout).not.toContain("\u001b[")
  })
})

describe("aide setup, login, logout", () => {
  let server: TestServer
  const user = home()
  const env = () => ({ AIDE_CLI_CONFIG: user.credentials })
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server.close()
    user.remove()
  })

  it("a command that needs a session exits 3 before login", async () => {
    const result = await aide(["threads", "--url", server.url], { env: env() })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("aide login")
  })

  it("setup sets the password, logs the CLI in, and keeps the token in a 0600 file", async () => {
    const result = await aide(["setup", "--url", server.url, "--password-stdin"], {
      env: env(),
      input: `${password}\n`,
    })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(statSync(user.credentials).mode & 0o777).toBe(0o600)
    expect((await aide(["threads", "--json"], { env: env() })).code).toBe(0)
  })

  it("a second setup fails (exit 1): the server is set up already", async () => {
    const result = await aide(["setup", "--url", server.url, "--password-stdin"], { env: env(), input: password })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("set up already")
  })

  it("a wrong password is refused with exit 3; the right one logs in", async () => {
    expect(
      (await aide(["login", "--url", server.url, "--password-stdin"], { env: env(), input: "wrong password" })).code,
    ).toBe(3)
    const result = await aide(["login", "--url", server.url, "--password-stdin"], { env: env(), input: password })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`logged in to ${server.url}`)
  })

  it("a session revoked elsewhere (sign out everywhere) makes commands exit 3, and forgets the token", async () => {
    const other = await request(`${server.url}/api/auth/login`, { body: { password } })
    expect(
      (await request(`${server.url}/api/auth/sessions`, { method: "DELETE", token: other.body.token })).status,
    ).toBe(200)
    const result = await aide(["threads"], { env: env() })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("aide login")
    expect(JSON.parse(readFileSync(user.credentials, "utf8")).servers[server.url]).toBeUndefined()
    expect((await aide(["login", "--url", server.url, "--password-stdin"], { env: env(), input: password })).code).toBe(
      0,
    )
  })

  it("logout revokes the session: later commands exit 3", async () => {
    expect((await aide(["logout"], { env: env() })).code).toBe(0)
    expect((await aide(["threads"], { env: env() })).code).toBe(3)
  })
})

describe("aide config, threads, inbox, chat (one message), doctor", () => {
  let server: ChatTestServer
  const user = home()
  const env = () => ({ AIDE_CLI_CONFIG: user.credentials })
  beforeAll(async () => {
    server = await startChatServer()
    const login = await aide(["login", "--url", server.url, "--password-stdin"], { env: env(), input: password })
    expect(login.code).toBe(0)
  })
  afterAll(async () => {
    await server.close()
    user.remove()
  })

  it("config get prints a path as JSON; set sends a merge patch and prints the new value", async () => {
    const got = await aide(["config", "get", "models.operator"], { env: env() })
    expect(got.code).toBe(0)
    expect(JSON.parse(got.stdout)).toEqual({ provider: "openai-compatible", model: "fake-model" })
    // Output ends with a newline, so a shell prompt never follows it on the same line.
    expect(got.stdout.endsWith("}\n")).toBe(true)
    const set = await aide(["config", "set", "models.operator.model", '"other-model"'], { env: env() })
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toBe("other-model")
    const back = await aide(["config", "get", "models.operator"], { env: env() })
    expect(JSON.parse(back.stdout)).toEqual({ provider: "openai-compatible", model: "other-model" })
    await aide(["config", "set", "models.operator.model", "fake-model"], { env: env() })
  })

  it("config without get/set, or an invalid value, fails with 2 and 1", async () => {
    expect((await aide(["config"], { env: env() })).code).toBe(2)
    const invalid = await aide(["config", "set", "models.operator", "42"], { env: env() })
    expect(invalid.code).toBe(1)
  })

  it("chat with a message sends it, streams the answer and exits; threads lists the thread", async () => {
    server.model.script({ text: "Hi there from the model." })
    const result = await aide(["chat", "Hello"], { env: env() })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("Hi there from the model.")
    const listed = await aide(["threads", "--json"], { env: env() })
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout).threads).toHaveLength(1)
    const text = await aide(["threads"], { env: env() })
    expect(text.stdout).toContain(JSON.parse(listed.stdout).threads[0].id)
  })

  it("threads shows local times, and a family by its latest branch with that branch's title", async () => {
    server.model.script({ text: "Forked answer." })
    expect((await aide(["chat", "Something to fork"], { env: env() })).code).toBe(0)
    const token = JSON.parse(readFileSync(user.credentials, "utf8")).servers[server.url].token
    const [root] = JSON.parse((await aide(["threads", "--json"], { env: env() })).stdout).threads
    const detail = await request(`${server.url}/api/threads/${root.id}`, { token })
    const fork = await request(`${server.url}/api/threads/${root.id}/fork`, {
      token,
      body: { messageId: detail.body.messages[1].id },
    })
    expect(fork.status).toBe(200)
    const branch = fork.body.thread.id
    // The original untitled, the branch (the latest of the family) titled: the case.
    await request(`${server.url}/api/threads/${root.id}`, { method: "PATCH", token, body: { title: null } })
    await request(`${server.url}/api/threads/${branch}`, { method: "PATCH", token, body: { title: "Branch title" } })
    const listed = await aide(["threads"], { env: env() })
    expect(listed.code).toBe(0)
    const line = listed.stdout.split("\n").find((candidate) => candidate.includes(root.id))
    expect(line).toBeDefined()
    expect(line).toMatch(new RegExp(`^${branch}  just now\\s+Branch title \\(branch of ${root.id}\\)$`))
    expect(listed.stdout).not.toContain("(untitled)")
    expect(listed.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/)
  })

  it("inbox lists the messages; --unread leaves out the read ones", async () => {
    const [first] = await server.run(
      Effect.flatMap(Inbox.Inbox, (box) =>
        Effect.all([
          box.create({ subject: "Morning digest", body: "…", destination: "web" }),
          box.create({ subject: "Old news", body: "…", destination: "web" }),
        ]),
      ),
    )
    await server.run(Effect.flatMap(Inbox.Inbox, (box) => box.update(first!.id, { read: true })))
    const all = await aide(["inbox", "--json"], { env: env() })
    expect(all.code).toBe(0)
    expect(
      JSON.parse(all.stdout)
        .messages.map((message: any) => message.subject)
        .sort(),
    ).toEqual(["Morning digest", "Old news"])
    const unread = await aide(["inbox", "--unread", "--json"], { env: env() })
    expect(JSON.parse(unread.stdout).messages.map((message: any) => message.subject)).toEqual(["Old news"])
    expect((await aide(["inbox"], { env: env() })).stdout).toContain("Old news")
  })

  it("doctor passes on a healthy install, and names the fix of what fails (exit 1)", async () => {
    const port = new URL(server.url).port
    const healthy = await aide(["doctor", "--data-dir", server.dataDir, "--port", port, "--json"], { env: env() })
    const report = JSON.parse(healthy.stdout)
    expect(report.checks.filter((check: any) => !check.ok)).toEqual([])
    expect(healthy.code).toBe(0)
    expect(report.checks.map((check: any) => check.name)).toEqual(
      expect.arrayContaining(["data directory", "database", "providers", "port"]),
    )
    chmodSync(server.dataDir, 0o755)
    try {
      const open = await aide(["doctor", "--data-dir", server.dataDir, "--port", port], { env: env() })
      expect(open.code).toBe(1)
      expect(open.stdout).toContain("✗ data directory")
      expect(open.stdout).toContain(`fix: chmod 700 ${server.dataDir}`)
    } finally {
      chmodSync(server.dataDir, 0o700)
    }
  })

  it("doctor marks checks it did not run with –, never ✓: not logged in, the server is not checked", async () => {
    const result = await aide(["doctor", "--data-dir", server.dataDir, "--url", server.url, "--port", "1"], {
      env: { AIDE_CLI_CONFIG: join(user.dir, "nobody.json") },
    })
    expect(result.stdout).toContain(`server ${server.url} (not logged in)`)
    expect(result.stdout).toContain(`data directory ${server.dataDir} (--data-dir)`)
    expect(result.stdout).toMatch(/^– server: not logged in to .*\n {2}to check it: aide login --url /m)
    expect(result.stdout).not.toMatch(/✓ server/)
    const json = JSON.parse(
      (
        await aide(["doctor", "--data-dir", server.dataDir, "--url", server.url, "--json"], {
          env: { AIDE_CLI_CONFIG: join(user.dir, "nobody.json") },
        })
      ).stdout,
    )
    expect(json.checks.find((check: any) => check.name === "server")).toMatchObject({ ok: false, skipped: true })
  })

  it("doctor says when the data directory checked is not the running server's", async () => {
    const other = mkdtempSync(join(user.dir, "other-"))
    writeFileSync(join(other, "aide.db"), "")
    const result = await aide(["doctor", "--data-dir", other], { env: env() })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`✗ data directory in use: ${server.url} answers, but no server runs on ${other}`)
    const right = await aide(["doctor", "--data-dir", server.dataDir, "--json"], { env: env() })
    expect(JSON.parse(right.stdout).checks[0]).toMatchObject({ name: "data directory in use", ok: true })
  })

  it("doctor reports a missing data directory and a port taken by another program", async () => {
    const missing = await aide(["doctor", "--data-dir", join(user.dir, "nowhere"), "--port", "1"], {
      env: { AIDE_CLI_CONFIG: join(user.dir, "nobody.json") },
    })
    expect(missing.code).toBe(1)
    expect(missing.stdout).toContain("✗ data directory")
  })
})

describe("aide backup and restore", () => {
  let server: TestServer
  const dataDir = mkdtempSync(join(tmpdir(), "aide-cli-data-"))
  const user = home()
  beforeAll(async () => {
    server = await startServer({ dataDir })
  })
  afterAll(async () => {
    await server.close()
    rmSync(dataDir, { recursive: true, force: true })
    user.remove()
  })

  it("backup copies the database while the server runs (0600, migrated)", async () => {
    const file = join(user.dir, "aide-backup.db")
    const result = await aide(["backup", file, "--data-dir", dataDir, "--json"])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ file, migration: latestMigration })
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it("a backup holds a provider connection sealed: its provider in clear, never its key or base URL", async () => {
    const { token } = await setup(server)
    const key = `sk-backup-${randomBytes(16).toString("hex")}`
    const baseUrl = "http://127.0.0.1:9/backup-only/v1"
    const connected = await request(`${server.url}/api/models/connections/openai-compatible`, {
      method: "PUT",
      token,
      body: { values: { OPENAI_COMPATIBLE_BASE_URL: baseUrl, OPENAI_COMPATIBLE_API_KEY: key } },
    })
    expect(connected.status).toBe(200)
    const config = await request(`${server.url}/api/config`, { token })
    expect(JSON.stringify(config.body)).not.toContain(key)
    expect(JSON.stringify(config.body)).not.toContain("backup-only")
    const file = join(user.dir, "aide-backup-connections.db")
    expect((await aide(["backup", file, "--data-dir", dataDir, "--json"])).code).toBe(0)
    const bytes = readFileSync(file)
    expect(bytes.includes("openai-compatible")).toBe(true)
    expect(bytes.includes(key)).toBe(false)
    expect(bytes.includes(key.slice(-12))).toBe(false)
    expect(bytes.includes("backup-only")).toBe(false)
  })

  it("restore refuses while a server runs on the data directory (exit 1), and works once it stopped", async () => {
    const file = join(user.dir, "aide-backup.db")
    const refused = await aide(["restore", file, "--data-dir", dataDir])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("a server is running")
    await server.close()
    const restored = await aide(["restore", file, "--data-dir", dataDir])
    expect(restored.stderr).toContain("restored into")
    expect(restored.code).toBe(0)
    server = await startServer({ dataDir })
  })

  it("backup and restore without a file are usage errors; PostgreSQL prints pg_dump", async () => {
    expect((await aide(["backup"])).code).toBe(2)
    const postgres = await aide(["backup", "out.dump"], { env: { DATABASE_URL: "postgres://x@127.0.0.1/aide" } })
    expect(postgres.code).toBe(0)
    expect(postgres.stdout).toContain('pg_dump --format=custom --file=out.dump "$DATABASE_URL"')
  })
})

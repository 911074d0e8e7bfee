import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const redacted = "••••••"

/** The stored config document, read straight from the SQLite file (the API never shows secrets). */
const storedDocument = (dataDir: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly document: string }>`SELECT document FROM app_config WHERE id = 1`
    return JSON.parse(rows[0]!.document)
  }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dataDir, "aide.db"), readonly: true })), Effect.runPromise)

const getConfig = (server: TestServer, token?: string) =>
  request(`${server.url}/api/config`, token === undefined ? {} : { token })

const patchConfig = (server: TestServer, token: string | undefined, body: unknown) =>
  request(`${server.url}/api/config`, { method: "PATCH", body, ...(token === undefined ? {} : { token }) })

/** What a fresh install answers (docs/configuration.md "Application config"). */
const defaults = {
  identity: { name: "Aide" },
  timezone: "UTC",
  personality: { systemPrompt: expect.any(String) },
  models: { operator: { provider: "openai", model: "gpt-4.1-mini" } },
  plugins: {},
  memory: {
    enabled: true,
    workingMemory: { enabled: true },
    observationalMemory: {
      enabled: true,
      scope: "resource",
      messageTokens: 30_000,
      observationTokens: 40_000,
      dailyTokenBudget: 1_000_000,
    },
    semanticRecall: { enabled: false, topK: 4, messageRange: 1 },
  },
  schedule: { enabled: true, tasks: [] },
  onboardingComplete: false,
  mcpServers: {},
  mcpServer: { enabled: false, tools: ["threads_search", "memory_read", "inbox_list", "schedule_list"] },
}

describe.each(storageKinds)("/api/config (%s)", (storage) => {
  let server: TestServer
  let token: string
  beforeEach(async () => {
    server = await startServer({ storage })
    token = (await setup(server)).token
  })
  afterEach(() => server.close())

  describe("GET /api/config", () => {
    it("answers the defaults on a fresh install", async () => {
      const response = await getConfig(server, token)
      expect(response.status).toBe(200)
      expect(response.body).toEqual(defaults)
    })

    it("answers 401 without a token", async () => {
      const response = await getConfig(server)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
    })
  })

  describe("PATCH /api/config", () => {
    it("answers 401 without a token and changes nothing", async () => {
      const response = await patchConfig(server, undefined, { timezone: "Europe/Berlin" })
      expect(response.status).toBe(401)
      expect((await getConfig(server, token)).body.timezone).toBe("UTC")
    })

    it("deep-merges the body and answers the resolved config", async () => {
      const first = await patchConfig(server, token, {
        identity: { name: "Jarvis" },
        models: { operator: { temperature: 0.7 } },
      })
      expect(first.status).toBe(200)
      const second = await patchConfig(server, token, {
        models: { operator: { provider: "anthropic", model: "claude-sonnet-4-5" } },
        mcpServers: { fs: { command: "aide-test-no-such-command", args: ["/tmp"] } },
      })
      expect(second.status).toBe(200)
      expect(second.body).toEqual({
        ...defaults,
        identity: { name: "Jarvis" },
        models: { operator: { provider: "anthropic", model: "claude-sonnet-4-5", temperature: 0.7 } },
        mcpServers: { fs: { command: "aide-test-no-such-command", args: ["/tmp"] } },
      })
      expect((await getConfig(server, token)).body).toEqual(second.body)
    })

    it("deletes keys sent as null", async () => {
      await patchConfig(server, token, {
        identity: { name: "Jarvis" },
        models: { operator: { temperature: 0.7, maxTokens: 1000 } },
        mcpServers: { a: { command: "a" }, b: { url: "https://mcp.example.com/mcp", enabled: false } },
      })
      const response = await patchConfig(server, token, {
        identity: { name: null },
        models: { operator: { temperature: null } },
        mcpServers: { a: null },
      })
      expect(response.status).toBe(200)
      expect(response.body.identity).toEqual({ name: "Aide" })
      expect(response.body.models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini", maxTokens: 1000 })
      expect(response.body.mcpServers).toEqual({ b: { url: "https://mcp.example.com/mcp", enabled: false } })
    })

    it.each([
      ["an unknown time zone", { timezone: "Mars/Olympus" }, /^timezone: unknown time zone "Mars\/Olympus"/],
      [
        "a temperature of 5",
        { models: { operator: { temperature: 5 } } },
        /^models\.operator\.temperature: must be a number between 0 and 2$/,
      ],
      ["an unknown provider", { models: { operator: { provider: "skynet" } } }, /^models\.operator\.provider: unknown/],
      [
        "an MCP server with both command and url",
        { mcpServers: { both: { command: "x", url: "https://x.example" } } },
        /^mcpServers\.both: has both command and url/,
      ],
      ["an unknown top-level key", { theme: "dark" }, /^theme: unknown key/],
      ["a body that is not an object", [1, 2], /^request body must be a JSON object$/],
    ])("answers 400 with the path for %s, and stores nothing", async (_case, body, message) => {
      const response = await patchConfig(server, token, body)
      expect(response.status).toBe(400)
      expect(Object.keys(response.body)).toEqual(["error"])
      expect(response.body.error).toMatch(message)
      expect((await getConfig(server, token)).body).toEqual(defaults)
    })

    it("accepts null on an unknown key: it deletes nothing (RFC 7396)", async () => {
      const response = await patchConfig(server, token, { theme: null, identity: { name: "Jarvis", colour: null } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ ...defaults, identity: { name: "Jarvis" } })
    })

    it("lists every problem in one error, joined with '; '", async () => {
      const response = await patchConfig(server, token, {
        identity: { name: "Valid" },
        timezone: "Nowhere/Land",
        models: { operator: { temperature: 5, maxTokens: -3 } },
        mcpServers: { remote: { url: "not a url" } },
      })
      expect(response.status).toBe(400)
      expect(response.body.error.split("; ")).toEqual([
        expect.stringMatching(/^timezone: /),
        "models.operator.temperature: must be a number between 0 and 2",
        "models.operator.maxTokens: must be a positive integer",
        "mcpServers.remote.url: must be an http(s) URL",
      ])
      expect((await getConfig(server, token)).body.identity.name).toBe("Aide")
    })

    it("shows MCP header values redacted, and keeps the stored value when the redacted one comes back", async () => {
      const created = await patchConfig(server, token, {
        mcpServers: {
          remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer s3cret-value" } },
        },
      })
      expect(created.status).toBe(200)
      expect(created.body.mcpServers.remote.headers).toEqual({ Authorization: redacted })
      expect(JSON.stringify(created.body)).not.toContain("s3cret-value")

      const read = await getConfig(server, token)
      expect(read.body.mcpServers.remote.headers).toEqual({ Authorization: redacted })
      expect(JSON.stringify(read.body)).not.toContain("s3cret-value")

      // A settings page saves the whole object it read, with another field changed.
      const saved = await patchConfig(server, token, {
        mcpServers: { remote: { ...read.body.mcpServers.remote, name: "Remote tools" } },
      })
      expect(saved.status).toBe(200)
      expect(saved.body.mcpServers.remote).toEqual({
        url: "https://mcp.example.com/mcp",
        name: "Remote tools",
        headers: { Authorization: redacted },
      })
      if (storage === "sqlite") {
        const stored = await storedDocument(server.dataDir)
        expect(stored.mcpServers.remote.headers).toEqual({ Authorization: "Bearer s3cret-value" })
      }

      const unknown = await patchConfig(server, token, { mcpServers: { remote: { headers: { "X-Other": redacted } } } })
      expect(unknown.status).toBe(400)
      expect(unknown.body.error).toMatch(/^mcpServers\.remote\.headers\.X-Other: /)
    })
  })
})

describe("PATCH /api/config across a restart", () => {
  let dataDir: string
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "aide-config-restart-"))
  })
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

  it("the config survives a server restart on the same data directory", async () => {
    const first = await startServer({ dataDir })
    const { token } = await setup(first)
    const patched = await patchConfig(first, token, { timezone: "Europe/Paris", onboardingComplete: true })
    expect(patched.status).toBe(200)
    await first.close()

    const second = await startServer({ dataDir })
    try {
      // Same data directory: same signing secret and sessions, so the token still works.
      const read = await getConfig(second, token)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(patched.body)
      expect(read.body).toMatchObject({ timezone: "Europe/Paris", onboardingComplete: true })
    } finally {
      await second.close()
    }
  })
})

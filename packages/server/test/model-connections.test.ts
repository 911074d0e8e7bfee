import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { ConnectionCipher, TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { SqlClient } from "@effect/sql"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { chunksOf } from "./support/chat.js"
import { request, setup, startServer, type TestServer } from "./support/server.js"

/** The owner's provider connections, over one server (SQLite) whose "provider" is the fake model server. */
describe("provider connections (GET/PUT/DELETE /api/models/connections, POST …/test)", () => {
  const key = `sk-conn-${randomBytes(16).toString("hex")}`
  const envKey = `gsk-env-${randomBytes(16).toString("hex")}`
  const logged: Array<string> = []
  let fake: FakeModelServer
  let server: TestServer
  let token: string

  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    request(`${server.url}${path}`, { ...init, token })
  const provider = async (id: string) =>
    (
      (await api("/api/models")).body.providers as Array<{ id: string; configured: boolean; models: Array<string> }>
    ).find((entry) => entry.id === id)!
  const connect = (values: Record<string, unknown>, id = "openai-compatible") =>
    api(`/api/models/connections/${id}`, { method: "PUT", body: { values } })
  const everythingSeen: Array<string> = []
  const seen = <T extends { body: unknown }>(response: T) => {
    everythingSeen.push(JSON.stringify(response.body))
    return response
  }

  beforeAll(async () => {
    // Whatever the server prints while the file runs: a key must never be in it.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream)
      vi.spyOn(stream, "write").mockImplementation((chunk: any, ...rest: Array<any>) => {
        logged.push(String(chunk))
        return write(chunk, ...rest)
      })
    }
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      const original = console[level].bind(console)
      vi.spyOn(console, level).mockImplementation((...args: Array<unknown>) => {
        logged.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "))
        original(...args)
      })
    }
    fake = await FakeModelServer.start({ models: ["conn-a", "conn-b"] })
    server = await startServer({
      env: { GROQ_API_KEY: envKey },
      kernel: { chat: { maxRetries: 0 }, titles: TitleGenerator.layerFallback },
    })
    ;({ token } = await setup(server))
  })
  afterAll(async () => {
    await server?.close()
    await fake?.close()
    vi.restoreAllMocks()
  })

  it("a connection added from the console configures the provider at once: listed, tested, used by a chat", async () => {
    expect((await provider("openai-compatible")).configured).toBe(false)
    const added = seen(await connect({ OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: key }))
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({ provider: "openai-compatible", readable: true, setByEnvironment: false })
    expect(added.body.variables).toEqual(
      expect.arrayContaining([{ name: "OPENAI_COMPATIBLE_API_KEY", hint: `••••${key.slice(-4)}` }]),
    )

    const listed = await provider("openai-compatible")
    expect(listed.configured).toBe(true)
    expect(listed.models).toEqual(["conn-a", "conn-b"])

    const tested = seen(await api("/api/models/connections/openai-compatible/test", { method: "POST" }))
    expect(tested).toMatchObject({ status: 200, body: { ok: true, models: ["conn-a", "conn-b"], listed: true } })

    const patched = await api("/api/config", {
      method: "PATCH",
      body: { models: { operator: { provider: "openai-compatible", model: "conn-a" } } },
    })
    expect(patched.status).toBe(200)
    fake.script({ text: "Answered through the connection." })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Hi" }] }),
    })
    const text = chunksOf(await response.text())
      .filter((chunk) => chunk.type === "text-delta")
      .map((chunk) => chunk.delta)
      .join("")
    expect(text).toBe("Answered through the connection.")
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`)

    const connections = seen(await api("/api/models/connections"))
    expect(connections.body.connections).toEqual([
      expect.objectContaining({ provider: "openai-compatible", readable: true, updatedAt: expect.any(String) }),
    ])
    expect(connections.body.environment).toEqual(["groq"])
    seen(await api("/api/config"))
  })

  it("the database holds the values sealed: no key without the server's secret, the key with it", async () => {
    const files = readdirSync(server.dataDir).filter((name) => name.startsWith("aide.db"))
    for (const file of files) expect(readFileSync(join(server.dataDir, file)).includes(key)).toBe(false)
    const rows = await server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ provider: string; sealed: string }>`SELECT provider, sealed FROM provider_connections`,
      ),
    )
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(row!.sealed).not.toContain(key)
    expect(row!.sealed).not.toContain(fake.url)
    const other = ConnectionCipher.make(Redacted.make(new Uint8Array(randomBytes(32))))
    expect(other.open(row!.provider, row!.sealed)).toBeUndefined()
    // The secret is the server's jwt-secret file in the data dir (no AIDE_JWT_SECRET here).
    const secret = new Uint8Array(
      Buffer.from(readFileSync(join(server.dataDir, "jwt-secret"), "utf8").trim(), "base64url"),
    )
    const opened = ConnectionCipher.make(Redacted.make(secret)).open(row!.provider, row!.sealed)
    expect(JSON.parse(opened!)).toMatchObject({ OPENAI_COMPATIBLE_API_KEY: key })
    // Bound to its provider: the same value under another provider's id does not open.
    expect(ConnectionCipher.make(Redacted.make(secret)).open("groq", row!.sealed)).toBeUndefined()
  })

  it("the environment wins: a provider it sets is refused (409) and listed as the environment's", async () => {
    const refused = seen(await connect({ GROQ_API_KEY: "gsk-from-console-000000" }, "groq"))
    expect(refused.status).toBe(409)
    expect(refused.body.error).toContain("environment")
    expect((await provider("groq")).configured).toBe(true)
  })

  it("client mistakes are 400s, naming what is wrong", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["no-such-provider", { X_API_KEY: "k" }, "unknown provider"],
      ["openai-compatible", { OPENAI_API_KEY: "k", OPENAI_COMPATIBLE_BASE_URL: fake.url }, "not OPENAI_API_KEY"],
      ["openai-compatible", { OPENAI_COMPATIBLE_BASE_URL: "ftp://127.0.0.1/v1" }, "http(s) URL"],
      ["openai-compatible", { OPENAI_COMPATIBLE_BASE_URL: "not a url" }, "http(s) URL"],
      ["openai-compatible", { OPENAI_COMPATIBLE_API_KEY: "k" }, "needs OPENAI_COMPATIBLE_BASE_URL"],
      ["openai", { OPENAI_API_KEY: "   " }, "empty"],
      ["openai", { OPENAI_API_KEY: "x".repeat(5000) }, ""],
      ["openai", { OPENAI_API_KEY: 42 }, ""],
    ]
    for (const [id, values, words] of cases) {
      const answer = seen(await connect(values, id))
      expect({ id, values: Object.keys(values), status: answer.status }).toEqual({
        id,
        values: Object.keys(values),
        status: 400,
      })
      expect(answer.body.error).toContain(words)
    }
    expect((await api("/api/models/connections/openai", { method: "PUT", body: { values: "k" } })).status).toBe(400)
    expect((await api("/api/models/connections/no-such-provider", { method: "DELETE" })).status).toBe(400)
    expect((await api("/api/models/connections/openai", { method: "DELETE" })).status).toBe(404)
    expect((await api("/api/models/connections/no-such-provider/test", { method: "POST" })).status).toBe(400)
  })

  it("removing the connection unconfigures the provider at once; the test then says why", async () => {
    const removed = await api("/api/models/connections/openai-compatible", { method: "DELETE" })
    expect(removed).toMatchObject({ status: 200, body: { success: true } })
    expect((await provider("openai-compatible")).configured).toBe(false)
    expect((await api("/api/models/connections")).body.connections).toEqual([])
    const tested = seen(await api("/api/models/connections/openai-compatible/test", { method: "POST" }))
    expect(tested.body).toMatchObject({ ok: false, error: expect.stringContaining("OPENAI_COMPATIBLE_BASE_URL") })
  })

  it("no key ever appeared in an answer or in the server's output", () => {
    expect(everythingSeen.length).toBeGreaterThan(10)
    for (const body of everythingSeen) {
      expect(body).not.toContain(key)
      expect(body).not.toContain(envKey)
    }
    const output = logged.join("\n")
    expect(output).not.toContain(key)
    expect(output).not.toContain(envKey)
  })
})

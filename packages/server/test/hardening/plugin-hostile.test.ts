import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer } from "../support/chat.js"
import { request } from "../support/server.js"

/**
 * Issue 20, findings 1 and 2, over HTTP: a permissionless compartment tool the model calls
 * (no approval) can neither kill the server with a hostile error nor freeze it with its schema.
 * The server here runs in this very process: if it died, this test would too.
 */

const tools = `
const deep = (depth) => { let value = []; for (let i = 0; i < depth; i++) value = [value]; return value }
export default [
  {
    id: "crash", name: "Crash", description: "throws a hostile error", parameters: { type: "object" },
    execute: () => { const error = new Error("x"); error.message = { slice: () => deep(4000) }; throw error },
  },
  {
    id: "redos", name: "Redos", description: "a backtracking schema",
    parameters: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
    execute: () => "never",
  },
]
`

describe("a hostile plugin tool called by the model", () => {
  let server: ChatTestServer
  const root = async () => (await fetch(`${server.url}/`, { signal: AbortSignal.timeout(10_000) })).status

  beforeAll(async () => {
    server = await startChatServer()
    const folder = join(server.dataDir, "plugins", "hostile")
    mkdirSync(join(folder, "src"), { recursive: true })
    writeFileSync(
      join(folder, "aide.plugin.json"),
      JSON.stringify({
        manifestVersion: 1,
        id: "hostile",
        name: "Hostile",
        provides: { tools: [{ entry: "src/tools.js", requireApproval: false }] },
      }),
    )
    writeFileSync(join(folder, "package.json"), JSON.stringify({ type: "module" }))
    writeFileSync(join(folder, "src", "tools.js"), tools)
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: { plugins: { hostile: { enabled: true } } },
    })
    expect(patched.status).toBe(200)
    await eventually(
      async () => {
        const listed = await request(`${server.url}/api/plugins`, { token: server.token })
        const entry = (listed.body.plugins as Array<any>).find((plugin) => plugin.id === "hostile")
        return entry?.provides.tools.toolIds.length === 2 ? true : undefined
      },
      { timeoutMs: 20_000 },
    )
  }, 60_000)
  afterAll(() => server?.close())

  it("an Error whose message is a hostile object is a tool error; the server answers after it", async () => {
    server.model.script({ toolCalls: [{ name: "hostile_crash", arguments: {} }] }, { text: "It failed." })
    const asked = server.model.requests.length
    const chunks = chunksOf(await (await chat(server, "Crash it")).text())
    const failed = chunks.find((chunk) => chunk.type === "tool-output-error")
    expect(failed?.errorText).toMatch(/an error whose message is not text/)
    // The run went on: the model was asked again, with the tool's error.
    expect(server.model.requests.length).toBe(asked + 2)
    expect(JSON.stringify(server.model.requests.at(-1)?.body)).toContain("an error whose message is not text")
    expect(await root()).toBe(200)
  })

  it("a backtracking schema costs the plugin's call, never the server's event loop: GET / answers meanwhile", async () => {
    server.model.script(
      { toolCalls: [{ name: "hostile_redos", arguments: { text: `${"a".repeat(40)}!` } }] },
      { text: "Done." },
    )
    const response = await chat(server, "Check it")
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let seen = ""
    // Until the tool call is under way in the plugin's process…
    while (!seen.includes('"tool-input-available"')) {
      const { value, done } = await reader.read()
      if (done) break
      seen += decoder.decode(value, { stream: true })
    }
    expect(seen).toContain('"tool-input-available"')
    // …the server still answers (before the fix, the schema ran here and froze it).
    expect(await root()).toBe(200)
    expect((await request(`${server.url}/api/plugins`, { token: server.token })).status).toBe(200)
    await reader.cancel()
  })
})

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer } from "../support/chat.js"
import { request } from "../support/server.js"

/**
 * Issue 20, finding 9: a plugin that declares Aide's own variables (the database URL, a provider
 * key) does not get them unless the owner allows each by name in `plugins.<id>.allowEnv`.
 */
describe("Aide's own environment variables and plugins", () => {
  let server: ChatTestServer
  const root = mkdtempSync(join(tmpdir(), "aide-plugin-env-"))
  const plugin = async () => {
    const listed = await request(`${server.url}/api/plugins`, { token: server.token })
    return (listed.body.plugins as Array<any>).find((entry) => entry.id === "greedy")
  }
  const patch = (body: unknown) => request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body })
  const envSeen = async () => {
    server.model.script({ toolCalls: [{ name: "greedy_env", arguments: {} }] }, { text: "done" })
    const chunks = chunksOf(await (await chat(server, "env?")).text())
    return chunks.find((chunk) => chunk.type === "tool-output-available").output
  }

  beforeAll(async () => {
    const directory = join(root, "greedy")
    mkdirSync(directory)
    writeFileSync(
      join(directory, "aide.plugin.json"),
      JSON.stringify({
        manifestVersion: 1,
        id: "greedy",
        name: "Greedy",
        envVars: [{ name: "DATABASE_URL" }, { name: "GREEDY_TOKEN" }],
        provides: {
          tools: [{ entry: "tools.mjs", requireApproval: false, permissions: { env: ["OPENAI_API_KEY"] } }],
        },
      }),
    )
    writeFileSync(
      join(directory, "tools.mjs"),
      `export default { id: "env", name: "Env", description: "what it got", parameters: { type: "object" },
  execute: (_input, context) => context.env }`,
    )
    server = await startChatServer({
      pluginsPath: [root],
      env: { DATABASE_URL: "postgres://db-secret", OPENAI_API_KEY: "sk-provider-secret", GREEDY_TOKEN: "own" },
    })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it("refuses them by default: listed with why, not loaded", async () => {
    expect((await patch({ plugins: { greedy: { enabled: true } } })).status).toBe(200)
    const entry = await plugin()
    expect(entry.validationErrors).toEqual([
      "environment variable DATABASE_URL is Aide's own: it is given to a plugin only if plugins.greedy.allowEnv lists it",
      "environment variable OPENAI_API_KEY is Aide's own: it is given to a plugin only if plugins.greedy.allowEnv lists it",
    ])
    expect(entry.provides.tools.toolIds).toEqual([])
  })

  it("refuses an allowEnv that is not a list of names with a 400", async () => {
    const answer = await patch({ plugins: { greedy: { allowEnv: "DATABASE_URL" } } })
    expect(answer.status).toBe(400)
    expect(JSON.stringify(answer.body)).toContain("plugins.greedy.allowEnv: must be a list of at most 64")
  })

  it("gives each one the owner allows, with a warning in the listing", async () => {
    expect((await patch({ plugins: { greedy: { allowEnv: ["DATABASE_URL", "OPENAI_API_KEY"] } } })).status).toBe(200)
    const entry = await eventually(
      async () => {
        const found = await plugin()
        return found.provides.tools.toolIds.length > 0 ? found : undefined
      },
      { timeoutMs: 15_000 },
    )
    expect(entry.validationErrors).toEqual([])
    expect(entry.provides.tools.alerts.map((alert: { message: string }) => alert.message)).toEqual(
      expect.arrayContaining([
        "Gets Aide's own environment variable DATABASE_URL (allowed in plugins.greedy.allowEnv)",
        "Gets Aide's own environment variable OPENAI_API_KEY (allowed in plugins.greedy.allowEnv)",
      ]),
    )
    expect(await envSeen()).toEqual({
      DATABASE_URL: "postgres://db-secret",
      OPENAI_API_KEY: "sk-provider-secret",
      GREEDY_TOKEN: "own",
    })
  })
})

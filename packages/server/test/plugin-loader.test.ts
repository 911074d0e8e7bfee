import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

const writePlugin = (root: string, folder: string, manifest: object, files: Record<string, string>) => {
  const directory = join(root, folder)
  mkdirSync(directory, { recursive: true })
  writeFileSync(join(directory, "aide.plugin.json"), JSON.stringify({ manifestVersion: 1, ...manifest }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text)
}

/** How the loader treats plugins: only enabled and valid ones run, each with only what it declared. */
describe("the plugin loader", () => {
  let server: ChatTestServer
  const root = mkdtempSync(join(tmpdir(), "aide-loader-"))
  const marker = join(root, "imported.txt")
  const plugin = async (id: string) => {
    const listed = await request(`${server.url}/api/plugins`, { token: server.token })
    return (listed.body.plugins as Array<any>).find((entry) => entry.id === id)
  }
  const patch = (body: unknown) => request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body })
  /** The plugin's entry once its tools are listed (the start runs in the background after a PATCH). */
  const loaded = (id: string) =>
    eventually(
      async () => {
        const entry = await plugin(id)
        return entry.provides.tools.toolIds.length > 0 ? entry : undefined
      },
      { timeoutMs: 15_000 },
    )

  beforeAll(async () => {
    // Host trust: its module writes a marker when imported, and reports the environment it got.
    writePlugin(
      root,
      "envprobe",
      {
        id: "envprobe",
        name: "Env probe",
        envVars: [{ name: "PROBE_TOKEN" }],
        provides: { tools: [{ entry: "tools.mjs", sandbox: "host", requireApproval: false }] },
      },
      {
        "tools.mjs": `import { writeFileSync } from "node:fs"
writeFileSync(${JSON.stringify(marker)}, "imported")
export default { id: "env", name: "Env", description: "The environment it sees", parameters: { type: "object" },
  execute: (_input, context) => ({ processEnv: Object.keys(process.env).sort(), contextEnv: context.env }) }`,
      },
    )
    writePlugin(
      root,
      "needy",
      {
        id: "needy",
        name: "Needy",
        configFields: [{ key: "apiKey", label: "API key", type: "password", required: true }],
        provides: { tools: [{ entry: "tools.js" }] },
      },
      {
        "tools.js": `export default { id: "t", name: "T", description: "d", parameters: { type: "object" }, execute: () => 1 }`,
      },
    )
    writePlugin(
      root,
      "halfbroken",
      { id: "halfbroken", name: "Half broken", provides: { tools: [{ entry: "good.js" }, { entry: "bad.js" }] } },
      {
        "good.js": `export default { id: "good", name: "Good", description: "works", parameters: { type: "object" }, execute: () => "ok" }`,
        "bad.js": `throw new Error("this entry cannot load")`,
      },
    )
    writePlugin(
      root,
      "oddchannel",
      { id: "oddchannel", name: "Odd channel", provides: { channels: [{ entry: "channel.mjs" }] } },
      { "channel.mjs": `export default { id: "not a valid id!", name: "Odd", send: async () => {} }` },
    )
    server = await startChatServer({
      pluginsPath: [root],
      env: { PROBE_TOKEN: "probe-secret", OTHER_SECRET: "must-not-leak" },
    })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it("never imports a disabled plugin, even to list it", async () => {
    expect((await plugin("envprobe")).enabled).toBe(false)
    expect(existsSync(marker)).toBe(false)
  })

  it("gives a running plugin only its declared variables, never the host's environment", async () => {
    expect((await patch({ plugins: { envprobe: { enabled: true } } })).status).toBe(200)
    const entry = await loaded("envprobe")
    expect(entry.provides.tools.toolIds).toEqual(["envprobe:env"])
    expect(existsSync(marker)).toBe(true)
    server.model.script({ toolCalls: [{ name: "envprobe_env", arguments: {} }] }, { text: "done" })
    const chunks = chunksOf(await (await chat(server, "env?")).text())
    const output = chunks.find((chunk) => chunk.type === "tool-output-available").output
    expect(output.contextEnv).toEqual({ PROBE_TOKEN: "probe-secret" })
    expect(output.processEnv.filter((name: string) => !name.startsWith("NODE_"))).toEqual(["PROBE_TOKEN"])
    expect(JSON.stringify(output)).not.toContain("must-not-leak")
  })

  it("skips an enabled plugin whose required settings are missing, and starts it once they are set", async () => {
    expect((await patch({ plugins: { needy: { enabled: true } } })).status).toBe(200)
    const skipped = await plugin("needy")
    expect(skipped.validationErrors).toEqual(["plugins.needy.apiKey: required"])
    expect(skipped.provides.tools.toolIds).toEqual([])
    expect((await patch({ plugins: { needy: { apiKey: "k" } } })).status).toBe(200)
    const started = await loaded("needy")
    expect(started.provides.tools.toolIds).toEqual(["needy:t"])
    expect(started.validationErrors).toEqual([])
  })

  it("loads the entries that work and reports the one that does not", async () => {
    expect((await patch({ plugins: { halfbroken: { enabled: true } } })).status).toBe(200)
    const entry = await loaded("halfbroken")
    expect(entry.provides.tools.toolIds).toEqual(["halfbroken:good"])
    expect(entry.provides.tools.alerts).toEqual(
      expect.arrayContaining([expect.objectContaining({ level: "error", message: expect.stringContaining("bad.js") })]),
    )
  })

  it("lists a plugin that failed to start with why (a channel of an id Aide refuses)", async () => {
    expect((await patch({ plugins: { oddchannel: { enabled: true } } })).status).toBe(200)
    const failed = await eventually(
      async () => {
        const entry = await plugin("oddchannel")
        return entry.validationErrors.length > 0 ? entry : undefined
      },
      { timeoutMs: 15_000 },
    )
    expect(failed.provides.channels.loaded).toBe(false)
    expect(failed.validationErrors[0]).toMatch(/^Not loaded: .*not a valid id!/)
  })
})

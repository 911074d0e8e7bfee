import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { testKernel } from "@aide/testing/effect"
import { Effect, HashMap, Layer, Logger, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfig } from "../../src/config/AppConfig.js"
import { PluginLoader } from "../../src/plugins/loader/PluginLoader.js"
import type { PluginView } from "../../src/plugins/PluginView.js"

/** Issue 24 items 14 and 16: a module that fails to load is an error; declared tools are listed and checked. */

const tool = (id: string, name: string, description = "") =>
  `{ id: ${JSON.stringify(id)}, name: ${JSON.stringify(name)}, description: ${JSON.stringify(description)}, parameters: { type: "object" }, execute: () => "ok" }`

const plugins: Record<string, { manifest: object; files: Record<string, string> }> = {
  // Its one module does not parse.
  broken: {
    manifest: { provides: { tools: [{ entry: "tools.js" }] } },
    files: { "tools.js": "export default { id: 'x', execute: () => {\n" },
  },
  // Declares `a` (as exported) and `gone` (not exported); exports `extra` undeclared; its agent's name differs.
  declared: {
    manifest: {
      provides: {
        tools: [
          {
            entry: "tools.js",
            tools: [
              { id: "a", name: "A", description: "first" },
              { id: "gone", name: "Gone" },
            ],
          },
        ],
        agents: [{ entry: "agent.js", agents: [{ id: "helper", name: "Helper", description: "helps" }] }],
      },
    },
    files: {
      "tools.js": `export default [${tool("a", "A", "first")}, ${tool("extra", "Extra")}]`,
      "agent.js": `export default { id: "helper", name: "Renamed", description: "helps", instructions: "help" }`,
    },
  },
  // Declares exactly what it exports.
  exact: {
    manifest: { provides: { tools: [{ entry: "tools.js", tools: [{ id: "a", name: "A", description: "first" }] }] } },
    files: { "tools.js": `export default ${tool("a", "A", "first")}` },
  },
}

interface Line {
  readonly message: string
  readonly level: string
  readonly plugin: unknown
}

let runtime: ManagedRuntime.ManagedRuntime<PluginLoader | AppConfig, unknown>
const lines: Array<Line> = []
const cleanup: Array<() => void> = []

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "aide-loading-"))
  const root = mkdtempSync(path.join(tmpdir(), "aide-loading-plugins-"))
  cleanup.push(
    () => rmSync(dataDir, { recursive: true, force: true }),
    () => rmSync(root, { recursive: true, force: true }),
  )
  for (const [id, plugin] of Object.entries(plugins)) {
    mkdirSync(path.join(root, id))
    const manifest = { manifestVersion: 1, id, name: id, ...plugin.manifest }
    writeFileSync(path.join(root, id, "aide.plugin.json"), JSON.stringify(manifest))
    for (const [name, text] of Object.entries(plugin.files)) writeFileSync(path.join(root, id, name), text)
  }
  const logger = Logger.make<unknown, void>(({ message, logLevel, annotations }) => {
    lines.push({
      message: String(Array.isArray(message) ? message[0] : message),
      level: logLevel.label,
      plugin: HashMap.get(annotations, "plugin").pipe((found) => (found._tag === "Some" ? found.value : undefined)),
    })
  })
  const kernel = testKernel({ dataDir, plugins: { paths: [root] } }) as Layer.Layer<PluginLoader | AppConfig, unknown>
  runtime = ManagedRuntime.make(kernel.pipe(Layer.provide(Logger.add(logger))))
  cleanup.push(() => {
    // the data dir holds the precompiled modules of the sandboxed plugins
    expect(readdirSync(path.join(dataDir, "cache", "plugin-modules")).sort()).toEqual(["broken", "declared", "exact"])
  })
})
afterAll(async () => {
  await runtime?.dispose()
  for (const step of cleanup.reverse()) step()
})

const list = () => runtime.runPromise(Effect.flatMap(PluginLoader, (loader) => loader.list))
const view = async (id: string) => (await list()).find((entry) => entry.id === id) as PluginView
const enable = (ids: ReadonlyArray<string>) =>
  runtime.runPromise(
    Effect.flatMap(AppConfig, (config) =>
      config.patch({ plugins: Object.fromEntries(ids.map((id) => [id, { enabled: true }])) }),
    ),
  )
const loaded = async (id: string) => {
  const until = Date.now() + 20_000
  for (;;) {
    const state = await runtime.runPromise(Effect.flatMap(PluginLoader, (loader) => loader.state(id)))
    if (state?.status === "loaded") return view(id)
    if (Date.now() > until) throw new Error(`${id} did not load: ${JSON.stringify(state)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("declared tools and load errors", () => {
  it("a disabled plugin lists the tools and agents its manifest declares, without running its code", async () => {
    const declared = await view("declared")
    expect(declared.enabled).toBe(false)
    expect(declared.provides.tools).toMatchObject({
      toolIds: ["declared:a", "declared:gone"],
      tools: [
        { id: "declared:a", name: "A", description: "first" },
        { id: "declared:gone", name: "Gone", description: "" },
      ],
      alerts: [{ level: "info", message: expect.stringMatching(/^Not loaded/) }],
    })
    expect(declared.provides.agents).toMatchObject({
      agentIds: ["declared:helper"],
      agents: [{ id: "declared:helper", name: "Helper", description: "helps", model: null }],
    })
    expect((await view("broken")).provides.tools?.toolIds).toEqual([])
  })

  it("once loaded, what the code exports is listed, and every difference from the manifest is an error", async () => {
    await enable(["broken", "declared", "exact"])
    const declared = await loaded("declared")
    expect(declared.provides.tools?.toolIds).toEqual(["declared:a", "declared:extra"])
    expect(declared.provides.tools?.alerts).toEqual([
      { level: "error", message: 'tools.js: the manifest declares tool "gone", which the module does not export' },
      { level: "error", message: 'tools.js: the module exports tool "extra", which the manifest does not declare' },
    ])
    expect(declared.provides.agents?.alerts).toEqual([
      {
        level: "error",
        message: 'agent.js: agent "helper" is named "Renamed" by the module and "Helper" by the manifest',
      },
    ])
    const exact = await loaded("exact")
    expect(exact.provides.tools?.alerts).toEqual([])
    expect(exact.provides.tools?.tools).toEqual([{ id: "exact:a", name: "A", description: "first" }])
  })

  it("a module that fails to load is an error, with its reason, on the listing and in the log", async () => {
    const broken = await loaded("broken")
    expect(broken.provides.tools?.toolIds).toEqual([])
    expect(broken.provides.tools?.alerts).toEqual([
      { level: "error", message: expect.stringMatching(/^tools\.js: SyntaxError: .*Unexpected token \(2:0\)$/) },
    ])
    const logged = lines.filter((line) => line.plugin === "broken")
    expect(logged).toContainEqual({
      level: "ERROR",
      plugin: "broken",
      message: expect.stringMatching(/^plugin failed to load: tools\.js: SyntaxError: /),
    })
    expect(logged.some((line) => line.message.includes("loaded with 0 tools"))).toBe(false)
    expect(lines.filter((line) => line.plugin === "declared").map((line) => line.level)).toContain("ERROR")
    expect(lines.find((line) => line.plugin === "exact" && line.message.startsWith("plugin loaded"))).toMatchObject({
      level: "INFO",
      message: "plugin loaded with 1 tools and agents",
    })
  })
})

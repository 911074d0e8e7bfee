import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppConfig } from "@aide/kernel"
import { ConfigProvider, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ServerConfig from "../src/ServerConfig.js"
import { request, setup, startServer, type TestServer } from "./support/server.js"

const writePlugin = (directory: string, manifest: unknown) => {
  mkdirSync(directory, { recursive: true })
  writeFileSync(join(directory, "aide.plugin.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest))
}

const weather = {
  manifestVersion: 1,
  id: "weather",
  name: "Weather",
  description: "Forecasts",
  author: "Aide",
  version: "1.2.0",
  license: "MIT",
  aide: ">=0.1.0 <1",
  envVars: [{ name: "WEATHER_API_KEY", required: true }, { name: "WEATHER_REGION" }],
  configFields: [
    { key: "apiToken", label: "API token", type: "password", required: true },
    { key: "units", label: "Units", type: "enum", options: [{ value: "metric" }, { value: "imperial" }] },
    { key: "days", label: "Days", type: "number" },
  ],
  provides: { tools: [{ entry: "tools.js", permissions: { network: ["api.weather.example"] } }] },
}

describe("GET /api/plugins", () => {
  let server: TestServer
  let token: string
  const outside = mkdtempSync(join(tmpdir(), "aide-plugins-path-"))
  const list = async () => {
    const answer = await request(`${server.url}/api/plugins`, { token })
    expect(answer.status).toBe(200)
    return answer.body.plugins as Array<any>
  }
  const byId = async (id: string) => (await list()).find((plugin) => plugin.id === id)

  beforeAll(async () => {
    writePlugin(join(outside, "echo-tools"), {
      manifestVersion: 1,
      id: "echo",
      name: "Echo",
      provides: {
        tools: [{ entry: "index.js", sandbox: "host", requireApproval: false }],
        agents: [{ entry: "a.js" }],
      },
    })
    server = await startServer({ pluginsPath: [outside], env: { WEATHER_API_KEY: "k" } })
    token = (await setup(server)).token
  })
  afterAll(async () => {
    await server.close()
    rmSync(outside, { recursive: true, force: true })
  })

  it("lists the plugins of AIDE_PLUGINS_PATH with every SPEC field; nothing of theirs is run", async () => {
    const echo = await byId("echo")
    expect(echo).toEqual({
      id: "echo",
      name: "Echo",
      description: null,
      author: null,
      icon: null,
      version: null,
      homepage: null,
      repository: null,
      license: null,
      envVars: [],
      envConfigured: true,
      configFields: [],
      enabled: false,
      config: {},
      provides: {
        tools: {
          toolIds: [],
          tools: [],
          sandbox: "host",
          requireApproval: false,
          alerts: [
            { level: "info", message: "Not loaded: the plugin is disabled or not yet started" },
            { level: "warning", message: "Runs with full trust (sandbox: host)" },
          ],
        },
        agents: {
          agentIds: [],
          agents: [],
          alerts: [{ level: "info", message: "Not loaded: the plugin is disabled or not yet started" }],
        },
      },
      validationErrors: [],
    })
  })

  it("a plugin put into <dataDir>/plugins appears without a restart; config and env are checked", async () => {
    writePlugin(join(server.dataDir, "plugins", "weather"), weather)
    const found = await byId("weather")
    expect(found).toMatchObject({
      name: "Weather",
      version: "1.2.0",
      license: "MIT",
      envVars: [
        { name: "WEATHER_API_KEY", required: true, configured: true },
        { name: "WEATHER_REGION", required: false, configured: false },
      ],
      envConfigured: true,
      configFields: weather.configFields,
      enabled: false,
      config: {},
      provides: {
        tools: { sandbox: "compartment", requireApproval: true, permissions: { network: ["api.weather.example"] } },
      },
      validationErrors: ["plugins.weather.apiToken: required"],
    })
    const patch = (plugin: unknown) =>
      request(`${server.url}/api/config`, { method: "PATCH", token, body: { plugins: { weather: plugin } } })
    const refused = await patch({ enabled: true, units: "kelvin", days: "three" })
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: 'plugins.weather.units: must be one of "metric", "imperial"; plugins.weather.days: must be a number',
      },
    })
    expect((await byId("weather")).enabled).toBe(false)
    const patched = await patch({ enabled: true, apiToken: "s3cret-token", units: "metric", days: 3 })
    expect(patched.status).toBe(200)
    expect(patched.body.plugins.weather).toEqual({ enabled: true, apiToken: "••••••", units: "metric", days: 3 })
    const configured = await byId("weather")
    expect(configured).toMatchObject({ enabled: true, validationErrors: [] })
    expect(configured.config).toEqual({ apiToken: "••••••", units: "metric", days: 3 })
    // What GET shows can be sent back: the stored secret stays.
    expect((await patch({ apiToken: "••••••", days: 5 })).status).toBe(200)
    const stored = await server.run(
      Effect.map(
        Effect.flatMap(AppConfig.AppConfig, (config) => config.get),
        (config) => config.plugins.weather,
      ),
    )
    expect(stored).toMatchObject({ apiToken: "s3cret-token", days: 5 })
    const config = await request(`${server.url}/api/config`, { token })
    expect(JSON.stringify(config.body)).not.toContain("s3cret-token")
    expect(JSON.stringify(await list())).not.toContain("s3cret-token")
  })

  it("npm packages (scoped too) under <dataDir>/plugins/node_modules are found", async () => {
    writePlugin(join(server.dataDir, "plugins", "node_modules", "@acme", "aide-notes"), {
      manifestVersion: 1,
      id: "acme-notes",
      name: "Notes",
      provides: { channels: [{ entry: "channel.js" }] },
    })
    expect((await byId("acme-notes")).provides).toEqual({
      channels: { loaded: false, webhook: null, realtime: null, webhookPath: null },
    })
  })

  it("bad manifests are listed with their problems, never a crash", async () => {
    const plugins = join(server.dataDir, "plugins")
    writePlugin(join(plugins, "broken-json"), "{ not json")
    writePlugin(join(plugins, "colon"), { manifestVersion: 1, id: "a:b", name: "Colon", provides: {} })
    writePlugin(join(plugins, "future"), { ...weather, id: "future", aide: ">=99" })
    writePlugin(join(plugins, "twin"), { ...weather, id: "echo" })
    const all = await list()
    const problems = (id: string) => all.find((plugin) => plugin.id === id)?.validationErrors.join("; ")
    expect(problems("broken-json")).toContain("aide.plugin.json is not valid JSON")
    expect(problems("a:b")).toContain("aide.plugin.json: id: must be 1–64 characters")
    expect(problems("future")).toContain("requires Aide >=99; this is Aide 0.1.0")
    const twins = all.filter((plugin) => plugin.id === "echo")
    expect(twins).toHaveLength(2)
    expect(
      twins.map((plugin) => plugin.validationErrors.some((e: string) => e.includes("another plugin has the id echo"))),
    ).toContain(true)
  })

  it("needs a token", async () => {
    expect((await request(`${server.url}/api/plugins`)).status).toBe(401)
  })
})

describe("AIDE_PLUGINS_PATH", () => {
  const read = (value: string) =>
    Effect.runPromise(
      Effect.either(
        ServerConfig.fromEnv.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["AIDE_PLUGINS_PATH", value]]))),
        ),
      ),
    )

  it("takes absolute folders separated by ':'", async () => {
    const config = await read("/opt/aide-plugins::/srv/more")
    expect(config._tag === "Right" && config.right.pluginsPath).toEqual(["/opt/aide-plugins", "/srv/more"])
  })

  it("refuses a relative entry: plugins never come from the working directory by accident", async () => {
    const config = await read("/opt/aide-plugins:plugins")
    expect(config._tag).toBe("Left")
    expect(String(config._tag === "Left" ? config.left : "")).toContain(
      "AIDE_PLUGINS_PATH entries must be absolute paths",
    )
  })
})

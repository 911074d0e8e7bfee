import { execFileSync, spawn } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, setup, startServer, type TestServer } from "../../server/test/support/server.js"
import { aide, bin, cliEnv, home, root } from "./support/cli.js"

/** An npm package folder packed into a tarball (npm installs a tarball offline, as it would from the registry). */
const pack = (dir: string, name: string, files: Record<string, unknown>) => {
  const folder = join(dir, name)
  mkdirSync(folder, { recursive: true })
  for (const [file, content] of Object.entries(files))
    writeFileSync(join(folder, file), typeof content === "string" ? content : JSON.stringify(content, null, 2))
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: folder,
    encoding: "utf8",
  })
  return join(dir, tarball.trim().split("\n").pop()!)
}

/** Every control a terminal acts on (ESC, BEL, the 8-bit CSI/OSC…), and bidi overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** A window title, a cleared screen and a green line: what a plugin's text must not do to a terminal. */
const hostile = "\u001b]0;pwned\u0007\u001b[2J\u001b[32mall tests passed\u001b[0m"

/**
 * `aide plugin dev`, which runs until Ctrl-C: started, read until `until` shows in its output,
 * then interrupted; its whole output once it has ended (a report's lines are written together).
 */
const devUntil = (args: ReadonlyArray<string>, env: Record<string, string>, until: string) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "plugin", "dev", ...args], { cwd: root, env: cliEnv(env) })
    let output = ""
    const timer = setTimeout(() => child.kill("SIGINT"), 60_000)
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.includes(until)) child.kill("SIGINT")
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })

describe("aide plugin", () => {
  let server: TestServer
  const user = home()
  const env = () => ({ AIDE_CLI_CONFIG: user.credentials })
  beforeAll(async () => {
    server = await startServer()
    await setup(server)
    expect((await aide(["login", "--url", server.url, "--password-stdin"], { env: env(), input: password })).code).toBe(
      0,
    )
  })
  afterAll(async () => {
    await server.close()
    user.remove()
  })

  it("add installs the package into <dataDir>/plugins, shows the plugin and how to enable it", async () => {
    const tarball = pack(user.dir, "weather-plugin", {
      "package.json": { name: "aide-plugin-weather", version: "1.0.0", type: "module" },
      "aide.plugin.json": {
        manifestVersion: 1,
        id: "weather",
        name: "Weather",
        version: "1.0.0",
        description: "Forecasts",
        configFields: [{ key: "apiToken", label: "API token", type: "password", required: true }],
        provides: { tools: [{ entry: "tools.js" }] },
      },
      "tools.js": "export default []\n",
    })
    const result = await aide(["plugin", "add", tarball, "--data-dir", server.dataDir], { env: env() })
    expect(result.stderr).toContain("installed")
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("✓ plugin weather — Weather 1.0.0")
    expect(result.stdout).toContain("needs plugins.weather.apiToken (API token)")
    expect(result.stdout).toContain("aide config set plugins.weather.enabled true")
  })

  it("list shows the plugins the server found; --json gives them as data", async () => {
    const listed = await aide(["plugin", "list"], { env: env() })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/weather {2}Weather 1\.0\.0 {2}disabled/)
    const json = await aide(["plugin", "list", "--json"], { env: env() })
    expect(JSON.parse(json.stdout).plugins.map((plugin: { id: string }) => plugin.id)).toContain("weather")
  })

  it("enabling it through aide config set shows up in plugin list", async () => {
    expect((await aide(["config", "set", "plugins.weather.enabled", "true"], { env: env() })).code).toBe(0)
    const listed = await aide(["plugin", "list"], { env: env() })
    // Enabled, with its required field still missing: skipped, and the problem says why.
    expect(listed.stdout).toMatch(
      /weather {2}Weather 1\.0\.0 {2}enabled, skipped\n {2}! plugins\.weather\.apiToken: required/,
    )
  })

  it("a package that is not an Aide plugin: exit 1", async () => {
    const tarball = pack(user.dir, "left-pad", { "package.json": { name: "not-a-plugin", version: "1.0.0" } })
    const result = await aide(["plugin", "add", tarball, "--data-dir", server.dataDir], { env: env() })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain("not-a-plugin has no aide.plugin.json")
  })

  describe("a plugin whose words carry terminal control sequences (NO_COLOR set)", () => {
    const colourless = () => ({ ...env(), NO_COLOR: "1" })

    it("add prints its name and description without them", async () => {
      const tarball = pack(user.dir, "hostile-plugin", {
        "package.json": { name: "aide-plugin-hostile", version: "1.0.0", type: "module" },
        "aide.plugin.json": {
          manifestVersion: 1,
          id: "hostile",
          name: `Hostile${hostile}`,
          version: "1.0.0",
          description: `Says ${hostile}`,
          provides: { tools: [{ entry: "tools.js" }] },
        },
        // Its load error says it too.
        "tools.js": `throw new Error(${JSON.stringify(`broken${hostile}`)})\n`,
      })
      const result = await aide(["plugin", "add", tarball, "--data-dir", server.dataDir], { env: colourless() })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("✓ plugin hostile — Hostileall tests passed 1.0.0")
      expect(result.stdout).toContain("  Says all tests passed\n")
      expect(result.stdout + result.stderr).not.toMatch(controls)
    })

    it("list prints what the server relays of it without them", async () => {
      const listed = await aide(["plugin", "list"], { env: colourless() })
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain("hostile  Hostileall tests passed 1.0.0  disabled")
      expect(listed.stdout + listed.stderr).not.toMatch(controls)
    })

    it("dev prints its load error without them", async () => {
      const folder = join(server.dataDir, "plugins", "node_modules", "aide-plugin-hostile")
      // Until the error's own words have arrived, not just the line that announces them.
      const dev = await devUntil([folder], colourless(), "tests passed")
      expect(dev.output).toContain("hostile did not load (started):")
      expect(dev.output).toContain("brokenall tests passed")
      expect(dev.output).not.toMatch(controls)
    }, 90_000)
  })

  it("dev refuses a manifest id that is not one path segment, and links nothing", async () => {
    const folder = join(user.dir, "traversal")
    mkdirSync(folder, { recursive: true })
    const manifest = { manifestVersion: 1, id: "../../trav-escape-link", name: "Escape", provides: {} }
    writeFileSync(join(folder, "aide.plugin.json"), JSON.stringify(manifest))
    const dataDir = join(user.dir, "data", "server")
    mkdirSync(dataDir, { recursive: true })
    const result = await aide(["plugin", "dev", folder, "--data-dir", dataDir], { env: env() })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('"../../trav-escape-link" is not a plugin id')
    // Where the id pointed (<dataDir>/../trav-escape-link): nothing; in the data directory: nothing either.
    expect(() => lstatSync(join(user.dir, "data", "trav-escape-link"))).toThrow(/ENOENT/)
    expect(readdirSync(join(user.dir, "data"))).toEqual(["server"])
    expect(existsSync(join(dataDir, "plugins"))).toBe(false)
  })

  it("add without a package, or an unknown subcommand: exit 2", async () => {
    expect((await aide(["plugin", "add"], { env: env() })).code).toBe(2)
    expect((await aide(["plugin", "frob"], { env: env() })).code).toBe(2)
  })
})

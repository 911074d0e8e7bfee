/**
 * Aide as users get it from npm (issue 34): every public package packed (`pnpm pack`) and
 * published to a local registry (Verdaccio, support/registry.ts) at the workspace's version, then
 * installed with plain npm into empty folders outside the workspace that know only that registry
 * (a `.npmrc` each; third-party packages come through it from the public registry). There: the
 * server started with `npx aide start`, the client from ESM and CommonJS, the embed example, a
 * third-party channel plugin published and installed by name, and a scaffolded plugin's own test.
 *
 * Cost: one registry and one publish for the file; the installs run in parallel from
 * `beforeAll` and each test awaits its own; npm's cache is kept between runs
 * (support/registry.ts `npmCache`). Takes the builds `pnpm build` left (CI builds first).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { transformSync } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkTarball } from "../../../scripts/release-check.js"
import {
  npmCache,
  packAndPublish,
  type Registry,
  run,
  seedSqlitePrebuild,
  startRegistry,
  type Workspace,
  workspacePackages,
} from "./support/registry.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const built = [
  "packages/kernel/dist/index.js",
  "packages/client/dist/index.cjs",
  "packages/plugin/dist/index.cjs",
  "packages/testing/dist/plugin.js",
  "packages/server/dist/main.js",
  "packages/cli/dist/main.js",
  "packages/console/dist/index.html",
]
const password = "correct horse battery staple"
/** Native or database packages that only the server (and SQLite or PostgreSQL storage) needs. */
const drivers = ["better-sqlite3", "@effect/sql-sqlite-node", "pg", "@effect/sql-pg"]

let work: string
let registry: Registry | undefined
let workspace: Workspace
let tarballs: ReadonlyMap<string, string>
let env: NodeJS.ProcessEnv
let server: ChildProcess | undefined
let url: string
let output = ""
/** The installs, started together in `beforeAll`; each test awaits the one it needs. */
const installs: Record<string, Promise<unknown>> = {}

/** An empty folder that knows one registry, as a user's project with its own `.npmrc`. */
const project = (name: string, manifest?: Record<string, unknown>) => {
  const folder = join(work, name)
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, ".npmrc"), `registry=${registry!.url}\n`)
  if (manifest !== undefined) writeFileSync(join(folder, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  return folder
}
const npm = (args: ReadonlyArray<string>, cwd: string, extra: NodeJS.ProcessEnv = {}) =>
  run("npm", args, cwd, { ...env, ...extra })
const node = (args: ReadonlyArray<string>, cwd: string, extra: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, args, cwd, { ...env, ...extra })
/** Started now, awaited by its test: a failure is that test's, never an unhandled rejection. */
const start = (name: string, task: () => Promise<unknown>) => {
  const promise = task()
  promise.catch(() => undefined)
  installs[name] = promise
}
/** The line a script prints last, parsed (servers and harnesses may log before it). */
const lastJson = (printed: string) => JSON.parse(printed.trim().split("\n").at(-1)!) as unknown
const manifestOf = (tarball: string) =>
  JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Record<
    string,
    unknown
  >
const filesOf = (tarball: string) => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n")
const poll = async (what: string, check: () => Promise<boolean>, timeout = 30_000) => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeout) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A channel plugin by a third party: `@aide/plugin` its one dependency, published like any package. */
const channelPlugin = (version: string) => {
  const folder = project("third-party/aide-plugin-echo", {
    name: "aide-plugin-echo",
    version: "1.0.0",
    type: "module",
    files: ["aide.plugin.json", "src"],
    dependencies: { "@aide/plugin": `^${version}` },
  })
  writeFileSync(
    join(folder, "aide.plugin.json"),
    JSON.stringify({
      manifestVersion: 1,
      id: "echo",
      name: "Echo",
      version: "1.0.0",
      configFields: [{ key: "secret", label: "Secret", type: "password", required: true }],
      provides: { channels: [{ entry: "src/channel.js" }] },
    }),
  )
  mkdirSync(join(folder, "src"))
  writeFileSync(
    join(folder, "src", "channel.js"),
    `import { defineChannel } from "@aide/plugin"

export default defineChannel({
  id: "echo",
  name: "Echo",
  webhook: {
    verify: { kind: "token", header: "x-echo-token", secret: { config: "secret" } },
    handle: (request) => ({ status: 200, body: "echo: " + request.body }),
  },
})
`,
  )
  return folder
}

beforeAll(async () => {
  const missing = built.filter((file) => !existsSync(join(root, file)))
  if (missing.length > 0) throw new Error(`run \`pnpm build\` first: missing ${missing.join(", ")}`)
  work = mkdtempSync(join(tmpdir(), "aide-registry-"))
  registry = await startRegistry(root, work)
  // The CLI records servers and logins under the config home: the test's own, never the user's.
  env = { ...registry.env, XDG_CONFIG_HOME: join(work, "config") }
  workspace = workspacePackages(root)
  const packs = join(work, "packs")
  ;[tarballs] = await Promise.all([
    packAndPublish(root, workspace, packs, registry),
    seedSqlitePrebuild(root, registry, work),
  ])
  const version = (name: string) => workspace.version(name)

  // docs/npm.md's "server from an empty folder": allowScripts for better-sqlite3, then @aide/cli.
  const serverDir = project("server", { name: "my-aide", private: true, allowScripts: { "better-sqlite3": true } })
  start("server", () => npm(["install", "@aide/cli"], serverDir))
  start("client", () => npm(["install", "@aide/client"], project("client", { name: "my-client", private: true })))
  // The embed example as a user copies it: its package.json with the published versions.
  const example = JSON.parse(readFileSync(join(root, "examples", "embed-kernel", "package.json"), "utf8")) as {
    dependencies: Record<string, string>
  }
  const embed = project("embed", {
    name: "my-embed",
    private: true,
    type: "module",
    allowScripts: { "better-sqlite3": true },
    dependencies: Object.fromEntries(
      Object.entries(example.dependencies).map(([name, range]) => [
        name,
        range.startsWith("workspace:") ? version(name) : range,
      ]),
    ),
  })
  start("embed", () => npm(["install"], embed))
  start("channel", () => npm(["publish"], channelPlugin(version("@aide/plugin"))))
  // `npx` in an empty folder installs @aide/cli into npm's cache first: started with the others.
  // npx reuses an earlier run's install of the same version (0.1.0 every run): dropped first.
  rmSync(join(npmCache, "_npx"), { recursive: true, force: true })
  start("scaffold", () => run("npx", ["@aide/cli", "plugin", "new", "word-tools"], project("author"), env))
}, 600_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null && server.pid !== undefined) {
    // npx's process group: npm exec and the server under it.
    process.kill(-server.pid, "SIGINT")
    await new Promise((resolve) => server?.once("exit", resolve))
  }
  await Promise.allSettled(Object.values(installs))
  await registry?.stop()
  // Two installs are ~40,000 files: a minute and more to delete on a busy disk, so the deletion
  // runs on after the file, detached.
  if (work !== undefined) spawn("rm", ["-rf", work], { detached: true, stdio: "ignore" }).unref()
}, 60_000)

describe("Aide from a registry", () => {
  it("publishes every public package at the workspace's version, with no workspace: range", async () => {
    expect([...workspace.published.keys()]).not.toContain("@aide/console")
    expect(workspace.published.size).toBeGreaterThanOrEqual(9)
    for (const [name, tarball] of tarballs) {
      const manifest = manifestOf(tarball)
      expect(JSON.stringify(manifest), name).not.toContain("workspace:")
      expect(manifest.files, name).toBeDefined()
      const published = await fetch(`${registry!.url}${name.replace("/", "%2f")}`)
      expect(published.status, name).toBe(200)
      expect(((await published.json()) as { "dist-tags": { latest: string } })["dist-tags"].latest, name).toBe(
        workspace.version(name),
      )
    }
    // Private, never published, and never proxied from the public registry either.
    expect((await fetch(`${registry!.url}@aide%2fconsole`)).status).toBe(404)
    expect(filesOf(tarballs.get("@aide/server")!)).toContain("package/console/index.html")
    expect(filesOf(tarballs.get("@aide/client")!)).toEqual(
      expect.arrayContaining(["package/dist/index.cjs", "package/dist/index.d.cts"]),
    )
    expect(manifestOf(tarballs.get("@aide/cli")!).dependencies).toHaveProperty("@aide/server")
    // The native drivers (and argon2) belong to the server; the kernel and the harness only offer them.
    for (const name of ["@aide/kernel", "@aide/testing"]) {
      const manifest = manifestOf(tarballs.get(name)!) as Record<string, Record<string, { optional?: boolean }>>
      for (const driver of name === "@aide/kernel" ? [...drivers, "argon2"] : drivers) {
        expect(manifest.dependencies, name).not.toHaveProperty(driver)
        expect(manifest.peerDependenciesMeta?.[driver]?.optional, `${name}: ${driver}`).toBe(true)
      }
    }
    expect(Object.keys(manifestOf(tarballs.get("@aide/server")!).dependencies as object)).toEqual(
      expect.arrayContaining([...drivers, "argon2"]),
    )
  })

  it("every tarball passes publint and Are the Types Wrong (`pnpm release:check`)", async () => {
    const reports = await Promise.all([...tarballs.values()].map((tarball) => checkTarball(tarball)))
    expect(reports.filter((report) => report.problems.length > 0)).toEqual([])
  }, 60_000)

  it("`npm install @aide/cli && npx aide start` serves the API and the console", async () => {
    await installs.server
    const folder = join(work, "server")
    server = spawn("npx", ["aide", "start"], {
      cwd: folder,
      env: { ...process.env, ...env, PORT: "0", HOST: "127.0.0.1", AIDE_LOG_FORMAT: "json" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    })
    server.stdout?.on("data", (chunk) => {
      output += chunk
    })
    server.stderr?.on("data", (chunk) => {
      output += chunk
    })
    await poll(
      `the server's address in its log:\n${output}`,
      async () => {
        if (server?.exitCode !== null) throw new Error(`aide start exited:\n${output}`)
        return /"url":"(http:\/\/[^"]+)"/.test(output)
      },
      60_000,
    )
    url = /"url":"(http:\/\/[^"]+)"/.exec(output)![1]!
    const status = await fetch(`${url}/`, { headers: { accept: "application/json" } })
    expect(status.status).toBe(200)
    expect(await status.json()).toMatchObject({ auth: { setup: false } })
    const page = await fetch(`${url}/app/`)
    expect(page.status).toBe(200)
    const script = /src="(\/app\/[^"]+\.js)"/.exec(await page.text())?.[1]
    expect(script).toBeDefined()
    expect((await fetch(`${url}${script}`)).status).toBe(200)
    // The default data directory, in the folder it was started from.
    expect(existsSync(join(folder, ".aide"))).toBe(true)
  }, 300_000)

  it("`npm install @aide/client` works from ESM and from CommonJS", async () => {
    await installs.client
    expect(url).toBeDefined()
    const folder = join(work, "client")
    writeFileSync(
      join(folder, "client.mjs"),
      `import { createAideClient } from "@aide/client"
const aide = createAideClient({ baseUrl: process.env.AIDE_URL })
const { auth } = await aide.auth.status()
await aide.auth.setup(${JSON.stringify(password)})
console.log(JSON.stringify({ setup: auth.setup, threads: (await aide.threads.list()).threads.length }))`,
    )
    expect(lastJson(await node(["client.mjs"], folder, { AIDE_URL: url }))).toEqual({ setup: false, threads: 0 })
    writeFileSync(
      join(folder, "client.cjs"),
      `const { createAideClient } = require("@aide/client")
const aide = createAideClient({ baseUrl: process.env.AIDE_URL })
aide.auth.status().then(({ auth }) => console.log(JSON.stringify({ setup: auth.setup })))`,
    )
    expect(lastJson(await node(["client.cjs"], folder, { AIDE_URL: url }))).toEqual({ setup: true })
  }, 300_000)

  it("a third-party channel plugin, published and installed by name, loads in the server", async () => {
    await Promise.all([installs.channel, installs.server])
    expect(url).toBeDefined()
    const folder = join(work, "server")
    // `aide plugin add` installs into the data directory `aide start` recorded for this server.
    const added = await run("npx", ["aide", "plugin", "add", "aide-plugin-echo", "--url", url], folder, env)
    expect(added).toContain("echo")
    expect(existsSync(join(folder, ".aide", "plugins", "node_modules", "@aide", "plugin", "package.json"))).toBe(true)
    const login = await fetch(`${url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    })
    expect(login.status).toBe(200)
    const { token } = (await login.json()) as { token: string }
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" }
    const patched = await fetch(`${url}/api/config`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ plugins: { echo: { enabled: true, secret: "s3cret-echo" } } }),
    })
    expect(patched.status).toBe(200)
    type Listed = { id: string; provides: { channels?: { loaded: boolean; webhookPath: string | null } } }
    let echo: Listed | undefined
    await poll("the echo channel loaded", async () => {
      const listed = (await (await fetch(`${url}/api/plugins`, { headers })).json()) as { plugins: Array<Listed> }
      echo = listed.plugins.find((plugin) => plugin.id === "echo")
      return echo?.provides.channels?.loaded === true
    })
    expect(echo?.provides.channels?.webhookPath).toBe("/wh/echo/echo")
    // Its code runs: the webhook answers with the channel's own reply, only with the secret.
    const refused = await fetch(`${url}/wh/echo/echo`, { method: "POST", body: "hi" })
    expect(refused.status).toBe(401)
    const answered = await fetch(`${url}/wh/echo/echo`, {
      method: "POST",
      headers: { "x-echo-token": "s3cret-echo" },
      body: "hi",
    })
    expect(answered.status).toBe(200)
    expect(await answered.text()).toBe("echo: hi")
  }, 300_000)

  it("the embed example runs on the installed kernel", async () => {
    await installs.embed
    const folder = join(work, "embed")
    // The example as written (TypeScript, types stripped), importing @aide/kernel from node_modules.
    for (const file of ["main.ts", "echoModel.ts"]) {
      const source = readFileSync(join(root, "examples", "embed-kernel", "src", file), "utf8")
      const { code } = transformSync(source, { loader: "ts", format: "esm", target: "node20" })
      writeFileSync(join(folder, file.replace(/\.ts$/, ".js")), code)
    }
    const printed = await node([join(folder, "main.js")], folder)
    // The host's JWT accepted, passwords refused, a chat answered and a task scheduled.
    expect(printed).toContain("sessionId: 'ada-laptop'")
    expect(printed).toContain("passwordLogin: 'AuthExternal'")
    expect(printed).toMatch(/reply: '.*Hello kernel/)
    expect(printed).toContain("nextRun: true")
  }, 300_000)

  it("`npx @aide/cli plugin new word-tools && cd word-tools && npm install && npm test` passes, compiling nothing", async () => {
    await installs.scaffold
    const plugin = join(work, "author", "word-tools")
    // The scaffold's own project: it gets the registry the way the folder it was made in has it.
    cpSync(join(work, "author", ".npmrc"), join(plugin, ".npmrc"))
    const installed = await npm(["install", "--foreground-scripts"], plugin)
    // Nothing compiled: no node-gyp build, no prebuilt download (msgpackr-extract's check,
    // `node-gyp-build-optional-packages`, only looks for its platform package).
    expect(installed).not.toMatch(/gyp info|CC\(target\)|node-gyp rebuild|prebuild-install/)
    // No driver and no argon2 under a plugin's tests: the harness runs on in-memory stores.
    for (const native of [...drivers, "argon2"])
      expect(existsSync(join(plugin, "node_modules", native)), native).toBe(false)
    const tested = await npm(["test"], plugin)
    expect(tested).toMatch(/passed/)
  }, 300_000)
})

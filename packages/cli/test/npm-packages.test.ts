import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { transformSync } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// The packages as npm users get them: `pnpm pack` of each (prepack scripts included), the
// tarballs installed with npm into an empty project outside the workspace, then run there. It
// takes the builds `pnpm build` left (CI builds before the tests) rather than rebuilding each.

const root = fileURLToPath(new URL("../../../", import.meta.url))
const published = [
  "kernel",
  "client",
  "plugin",
  "testing",
  "server",
  "cli",
  "plugin-slack",
  "plugin-telegram",
  "plugin-email",
  "plugin-discord",
  "plugin-matrix",
  "plugin-web-fetch",
  "plugin-webhook",
  "plugin-whatsapp",
] as const
const built = [
  "packages/kernel/dist/index.js",
  "packages/kernel/dist/internal.js",
  "packages/client/dist/index.cjs",
  "packages/plugin/dist/index.cjs",
  "packages/testing/dist/plugin.js",
  "packages/server/dist/main.js",
  "packages/cli/dist/main.js",
  "packages/console/dist/index.html",
]

/** Native or database packages that only the server (and SQLite or PostgreSQL storage) needs. */
const drivers = ["better-sqlite3", "@effect/sql-sqlite-node", "pg", "@effect/sql-pg"]

let work: string
let project: string
const tarballs: Record<string, string> = {}
let server: ChildProcess | undefined
let url: string
let output = ""

// Asynchronous: a minutes-long install must not block the worker (vitest's RPC times out).
const run = async (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = {}) =>
  (await promisify(execFile)(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }))
    .stdout
const node = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => run(process.execPath, args, project, env)
/** The line a script prints last, parsed (servers and harnesses may log before it). */
const lastJson = (printed: string) => JSON.parse(printed.trim().split("\n").at(-1)!) as unknown
const manifestOf = (tarball: string) =>
  JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Record<
    string,
    unknown
  >
const filesOf = (tarball: string) => execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n")

/**
 * better-sqlite3's binary: its install script downloads one, or compiles it for minutes where
 * no download is possible (here). The workspace's binary of the same version is taken when
 * there is one, else the script runs (`npm rebuild`).
 */
const nativeSqlite = async () => {
  const installed = join(project, "node_modules", "better-sqlite3")
  const workspace = dirname(
    createRequire(join(root, "packages", "kernel", "package.json")).resolve("better-sqlite3/package.json"),
  )
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version
  const binary = (dir: string) => join(dir, "build", "Release", "better_sqlite3.node")
  if (version(installed) === version(workspace) && existsSync(binary(workspace))) {
    mkdirSync(dirname(binary(installed)), { recursive: true })
    copyFileSync(binary(workspace), binary(installed))
    return
  }
  const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as Record<string, unknown>
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ ...manifest, allowScripts: { "better-sqlite3": true } }),
  )
  await run("npm", ["rebuild", "better-sqlite3"], project)
}

beforeAll(async () => {
  const missing = built.filter((file) => !existsSync(join(root, file)))
  if (missing.length > 0) throw new Error(`run \`pnpm build\` first: missing ${missing.join(", ")}`)
  work = mkdtempSync(join(tmpdir(), "aide-npm-"))
  const packs = join(work, "packs")
  project = join(work, "project")
  // An empty project of its own, outside the workspace: only npm and the tarballs.
  mkdirSync(project)
  // One recursive pack, scripts off: the builds are there already (the client's `prepare` would
  // rebuild it). The server packs on its own, with its prepack script, which copies the console in.
  const pnpm = ["-y", "pnpm@10.20.0"]
  const filters = published.filter((name) => name !== "server").flatMap((name) => ["--filter", `@aide/${name}`])
  await run(
    "npx",
    [...pnpm, "-r", ...filters, "--config.ignore-scripts=true", "pack", "--pack-destination", packs],
    root,
  )
  await run("npx", [...pnpm, "pack", "--pack-destination", packs], join(root, "packages", "server"))
  for (const name of published) tarballs[name] = join(packs, `aide-${name}-0.1.0.tgz`)
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      // A registry connection that stalls is given up on (and retried) after a minute, not five.
      "--fetch-timeout=60000",
      // As npm 11's default will be: no dependency's script runs. argon2 (0.44) needs none;
      // better-sqlite3's binary is seen to below.
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...Object.values(tarballs),
    ],
    project,
  )
  await nativeSqlite()
}, 600_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    server.kill("SIGINT")
    await new Promise((resolve) => server?.once("exit", resolve))
  }
  // Hundreds of megabytes of node_modules: removing them takes a while on a busy disk.
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
}, 180_000)

describe("the packed packages", () => {
  it("leave no workspace: version, and name what they ship", () => {
    for (const name of published) {
      const manifest = manifestOf(tarballs[name]!)
      expect(JSON.stringify(manifest), name).not.toContain("workspace:")
      expect(manifest.files, name).toBeDefined()
    }
    expect(filesOf(tarballs.server!)).toContain("package/console/index.html")
    expect(filesOf(tarballs.client!)).toEqual(
      expect.arrayContaining(["package/dist/index.cjs", "package/dist/index.d.cts"]),
    )
    expect(manifestOf(tarballs.cli!).dependencies).toHaveProperty("@aide/server")
    // The native drivers (and argon2) belong to the server; the kernel and the harness only offer them.
    for (const name of ["kernel", "testing"]) {
      const manifest = manifestOf(tarballs[name]!) as Record<string, Record<string, { optional?: boolean }>>
      for (const driver of name === "kernel" ? [...drivers, "argon2"] : drivers) {
        expect(manifest.dependencies, name).not.toHaveProperty(driver)
        expect(manifest.peerDependenciesMeta?.[driver]?.optional, `${name}: ${driver}`).toBe(true)
      }
    }
    expect(Object.keys(manifestOf(tarballs.server!).dependencies as object)).toEqual(
      expect.arrayContaining([...drivers, "argon2"]),
    )
  })

  it("a plugin's tests install no native module: @aide/plugin, @aide/testing and vitest alone", async () => {
    const light = join(work, "light")
    mkdirSync(light)
    writeFileSync(join(light, "package.json"), JSON.stringify({ name: "light", private: true }))
    // What npm would add (resolved from its cache, nothing written): no driver, no node-gyp.
    const added = await run(
      "npm",
      [
        "install",
        "--dry-run",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        ...["plugin", "testing", "kernel"].map((name) => tarballs[name]!),
        "vitest@^3.2.4",
      ],
      light,
    )
    const names = [...added.matchAll(/^add (\S+) /gm)].map((match) => match[1])
    expect(names).toEqual(expect.arrayContaining(["@aide/kernel", "@aide/testing", "vitest"]))
    for (const native of [...drivers, "argon2", "node-gyp", "prebuild-install"]) expect(names).not.toContain(native)
  }, 120_000)

  it("run the embed example on the installed kernel", async () => {
    // The example as written (TypeScript, types stripped), importing @aide/kernel from node_modules.
    const embed = join(project, "embed")
    mkdirSync(embed)
    for (const file of ["main.ts", "echoModel.ts"]) {
      const source = readFileSync(join(root, "examples", "embed-kernel", "src", file), "utf8")
      const { code } = transformSync(source, { loader: "ts", format: "esm", target: "node20" })
      writeFileSync(join(embed, file.replace(/\.ts$/, ".js")), code)
    }
    const printed = await node([join(embed, "main.js")])
    // The host's JWT accepted, passwords refused, a chat answered and a task scheduled.
    expect(printed).toContain("sessionId: 'ada-laptop'")
    expect(printed).toContain("passwordLogin: 'AuthExternal'")
    expect(printed).toMatch(/reply: '.*Hello kernel/)
    expect(printed).toContain("nextRun: true")
  }, 60_000)

  it("`aide start` serves the API and the console", async () => {
    const dataDir = join(work, "data")
    server = spawn(join(project, "node_modules", ".bin", "aide"), ["start"], {
      cwd: project,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", AIDE_DATA_DIR: dataDir, AIDE_LOG_FORMAT: "json" },
      stdio: ["ignore", "pipe", "pipe"],
    })
    server.stdout?.on("data", (chunk) => {
      output += chunk
    })
    server.stderr?.on("data", (chunk) => {
      output += chunk
    })
    const started = Date.now()
    while (!/"url":"(http:\/\/[^"]+)"/.test(output)) {
      if (server.exitCode !== null || Date.now() - started > 60_000) throw new Error(`no server:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    url = /"url":"(http:\/\/[^"]+)"/.exec(output)![1]!
    const status = await fetch(`${url}/`, { headers: { accept: "application/json" } })
    expect(status.status).toBe(200)
    expect(await status.json()).toMatchObject({ auth: { setup: false } })
    const page = await fetch(`${url}/app/`)
    expect(page.status).toBe(200)
    const html = await page.text()
    const script = /src="(\/app\/[^"]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    expect((await fetch(`${url}${script}`)).status).toBe(200)
  }, 90_000)

  it("the client works from ESM and from CommonJS", async () => {
    expect(url).toBeDefined()
    const esm = `import { createAideClient } from "@aide/client"
const aide = createAideClient({ baseUrl: process.env.AIDE_URL })
const { auth } = await aide.auth.status()
await aide.auth.setup("correct horse battery staple")
console.log(JSON.stringify({ setup: auth.setup, threads: (await aide.threads.list()).threads.length }))`
    writeFileSync(join(project, "client.mjs"), esm)
    expect(lastJson(await node(["client.mjs"], { AIDE_URL: url }))).toEqual({ setup: false, threads: 0 })
    const cjs = `const { createAideClient } = require("@aide/client")
const aide = createAideClient({ baseUrl: process.env.AIDE_URL })
aide.auth.status().then(({ auth }) => console.log(JSON.stringify({ setup: auth.setup })))`
    writeFileSync(join(project, "client.cjs"), cjs)
    expect(lastJson(await node(["client.cjs"], { AIDE_URL: url }))).toEqual({ setup: true })
  }, 30_000)

  it("a plugin written with @aide/plugin runs in a real kernel (@aide/testing/plugin), no driver loaded", async () => {
    const plugin = join(project, "shout")
    mkdirSync(join(plugin, "src"), { recursive: true })
    // The manifest comes from the SDK's definePlugin (CommonJS here), the tool is sandboxed source.
    writeFileSync(
      join(project, "manifest.cjs"),
      `const { definePlugin } = require("@aide/plugin")
process.stdout.write(JSON.stringify(definePlugin({
  manifestVersion: 1, id: "shout", name: "Shout",
  provides: { tools: [{ entry: "src/tools.js", requireApproval: false, tools: [{ id: "shout", name: "Shout", description: "Upper-cases" }] }] },
})))`,
    )
    writeFileSync(join(plugin, "aide.plugin.json"), await node(["manifest.cjs"]))
    writeFileSync(
      join(plugin, "src", "tools.js"),
      `export default { id: "shout", name: "Shout", description: "Upper-cases",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }) => ({ text: text.toUpperCase() }) }`,
    )
    const check = `import { defineTool } from "@aide/plugin"
import { startPlugin } from "@aide/testing/plugin"
if (typeof defineTool !== "function") throw new Error("no defineTool")
const plugin = await startPlugin({ directory: ${JSON.stringify(plugin)} })
try { console.log("RESULT " + JSON.stringify(await plugin.callTool("shout", { text: "hi" }))) } finally { await plugin.close() }`
    writeFileSync(join(project, "plugin.mjs"), check)
    // As where they are not installed: the drivers and argon2 cannot be resolved.
    writeFileSync(
      join(project, "no-natives.mjs"),
      `export const resolve = (specifier, context, next) => {
  if (${JSON.stringify([...drivers, "argon2"])}.includes(specifier)) throw Object.assign(new Error("refused: " + specifier), { code: "ERR_MODULE_NOT_FOUND" })
  return next(specifier, context)
}`,
    )
    writeFileSync(
      join(project, "register.mjs"),
      `import { register } from "node:module"\nregister("./no-natives.mjs", import.meta.url)`,
    )
    // The harness logs too: the result is the marked line.
    const printed = await node(["--import", "./register.mjs", "plugin.mjs"])
    expect(JSON.parse(/^RESULT (.*)$/m.exec(printed)?.[1] ?? "null")).toEqual({ text: "HI" })
  }, 60_000)
})

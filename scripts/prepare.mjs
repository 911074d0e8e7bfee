#!/usr/bin/env node
// The root `prepare` script: `pnpm install` in a clone ends by building what running and
// importing need, so neither waits later (issue 21, "first start"; issue 22, "the README's install
// leaves every package importable"):
// - the server's process bundle and the web console: the first `aide start` builds nothing, its
//   API answers in a second or two and /app/ at once;
// - the command line's bundle;
// - the JavaScript of @aide/kernel, @aide/plugin and @aide/testing, so a script next to the clone
//   imports them (@aide/client builds itself, with its types, in its own `prepare`). Their type
//   declarations take minutes on two cores: `pnpm build` writes them (the workspace's own
//   TypeScript reads the sources).
// Each target is skipped when its output is newer than its sources (a second install is instant),
// and they are all skipped on CI (`CI=true`, which runs `pnpm build` next) or with `AIDE_SKIP_PREPARE=1`.
import { spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const packages = join(root, "packages")

const newest = (path) => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path))
    if (entry !== "node_modules") latest = Math.max(latest, newest(join(path, entry)))
  return latest
}
const isStale = (output, sources) =>
  !existsSync(output) || sources.some((path) => newest(path) > statSync(output).mtimeMs)

/** The script of a package's build tool, resolved from `from` (a package folder). */
const tool = (from, name, script) =>
  join(dirname(createRequire(join(from, "package.json")).resolve(`${name}/package.json`)), script)
const tsup = (from) => tool(from, "tsup", join("dist", "cli-default.js"))

const pkg = (name, ...rest) => join(packages, name, ...rest)
const library = (name, extra = []) => ({
  name: `@aide/${name} (JavaScript)`,
  cwd: pkg(name),
  output: pkg(name, "dist", "index.js"),
  sources: [pkg(name, "src"), pkg(name, "tsup.config.ts"), pkg(name, "package.json"), ...extra],
  script: () => tsup(pkg(name)),
  args: ["--silent"],
  env: { AIDE_BUILD: "js" },
})

const targets = [
  {
    name: "the server bundle",
    cwd: pkg("server"),
    output: pkg("server", "dist", "main.js"),
    sources: [
      pkg("server", "src"),
      pkg("server", "tsup.config.ts"),
      pkg("server", "package.json"),
      pkg("kernel", "src"),
      pkg("kernel", "package.json"),
    ],
    script: () => tsup(pkg("server")),
    args: ["--silent"],
    env: { AIDE_BUILD: "runtime" },
  },
  {
    name: "the web console",
    cwd: pkg("console"),
    output: pkg("console", "dist", "index.html"),
    sources: ["src", "public", "index.html", "vite.config.ts", "package.json"]
      .map((path) => pkg("console", path))
      .concat(pkg("client", "src")),
    script: () => tool(pkg("console"), "vite", join("bin", "vite.js")),
    args: ["build", "--logLevel", "warn"],
    env: {},
  },
  {
    name: "the command line",
    cwd: pkg("cli"),
    output: pkg("cli", "dist", "main.js"),
    sources: [pkg("cli", "src"), pkg("cli", "tsup.config.ts"), pkg("client", "src")],
    script: () => tsup(pkg("cli")),
    args: ["--silent"],
    env: {},
  },
  // The kernel's build also bundles its plugin runner (runtime/dist, not a source of itself).
  library("kernel", [
    pkg("kernel", "runtime", "sdk"),
    ...readdirSync(pkg("kernel", "runtime"))
      .filter((name) => /\.(mjs|cjs)$/.test(name))
      .map((name) => pkg("kernel", "runtime", name)),
  ]),
  library("plugin"),
  library("testing"),
]

const build = (target) =>
  new Promise((resolve) => {
    const started = Date.now()
    const output = []
    const child = spawn(process.execPath, [target.script(), ...target.args], {
      cwd: target.cwd,
      env: { ...process.env, ...target.env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    child.stdout.on("data", (chunk) => output.push(chunk))
    child.stderr.on("data", (chunk) => output.push(chunk))
    child.on("close", (status) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      if (status === 0) process.stdout.write(`✓ built ${target.name} (${seconds} s)\n`)
      else process.stderr.write(`✗ ${target.name} failed (${seconds} s):\n${Buffer.concat(output).toString("utf8")}\n`)
      resolve(status === 0)
    })
  })

if (process.env.AIDE_SKIP_PREPARE === "1" || process.env.CI === "true") process.exit(0)
const stale = targets.filter((target) => isStale(target.output, target.sources))
const results = await Promise.all(stale.map(build))
// A failed build is reported, not fatal: `aide start` and `pnpm build` build it again.
if (results.includes(false)) process.stderr.write("some builds failed (above); `pnpm build` shows why\n")

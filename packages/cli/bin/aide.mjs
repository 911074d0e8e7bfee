#!/usr/bin/env node
// The `aide` command. In a clone of the repository (sources beside `dist`), the CLI is built first
// when `dist/main.js` is missing or older than its sources (about a second, once after each
// change), so `pnpm start` and a fresh clone need no separate build step.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bundle = join(root, "dist", "main.js")

const newest = (path) => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

// The plugin SDK's and the harness's package.json: their versions are built in (`aide plugin new`).
const sources = [
  join(root, "src"),
  join(root, "tsup.config.ts"),
  join(root, "..", "client", "src"),
  join(root, "..", "plugin", "package.json"),
  join(root, "..", "testing", "package.json"),
]
const inClone = existsSync(join(root, "src")) && existsSync(join(root, "tsup.config.ts"))
if (inClone && (!existsSync(bundle) || sources.some((path) => newest(path) > statSync(bundle).mtimeMs))) {
  const started = Date.now()
  process.stderr.write("[aide] building the command line…\n")
  const tsup = join(
    dirname(createRequire(join(root, "package.json")).resolve("tsup/package.json")),
    "dist",
    "cli-default.js",
  )
  const build = spawnSync(process.execPath, [tsup, "--silent"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] })
  if (build.status !== 0) {
    process.stderr.write("[aide] building the command line failed (output above)\n")
    process.exit(1)
  }
  process.stderr.write(`[aide] built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
}

const { main } = await import(pathToFileURL(bundle).href)
process.exitCode = await main(process.argv.slice(2))

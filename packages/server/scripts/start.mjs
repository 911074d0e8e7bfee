#!/usr/bin/env node
// `pnpm start`: builds the process bundle when it is missing or older than its sources, then runs it.
// Only the bundle: no type declarations and no kernel `dist` (the bundle takes the kernel from its
// sources, see tsup.config.ts), so a fresh clone starts in seconds. `pnpm build` builds everything.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const workspace = join(root, "..", "..")
const bundle = join(root, "dist", "main.js")

const newest = (path) => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

const sources = [
  join(root, "src"),
  join(root, "tsup.config.ts"),
  join(root, "package.json"),
  join(workspace, "packages", "kernel", "src"),
  join(workspace, "packages", "kernel", "package.json"),
]
const stale = !existsSync(bundle) || sources.some((path) => newest(path) > statSync(bundle).mtimeMs)
if (stale) {
  const started = Date.now()
  console.error("[aide] building the server bundle (once, after each change of the sources)…")
  const tsupPackage = createRequire(join(workspace, "package.json")).resolve("tsup/package.json")
  const tsup = join(dirname(tsupPackage), "dist", "cli-default.js")
  // tsup prints each step ("Build start", "Build success"): that is the progress shown.
  const build = spawnSync(process.execPath, [tsup], {
    cwd: root,
    env: { ...process.env, AIDE_BUILD: "runtime" },
    stdio: ["ignore", "inherit", "inherit"],
  })
  if (build.status !== 0) {
    console.error("[aide] the build failed (output above)")
    process.exit(build.status ?? 1)
  }
  console.error(`[aide] built in ${((Date.now() - started) / 1000).toFixed(1)} s; starting…`)
}

// The web console (/app/): static files built by Vite from packages/console, when stale.
const consoleRoot = join(workspace, "packages", "console")
const consoleIndex = join(consoleRoot, "dist", "index.html")
const consoleSources = ["src", "public", "index.html", "vite.config.ts", "package.json"]
  .map((path) => join(consoleRoot, path))
  .concat([join(workspace, "packages", "client", "src")])
if (
  existsSync(join(consoleRoot, "package.json")) &&
  (!existsSync(consoleIndex) || consoleSources.some((path) => newest(path) > statSync(consoleIndex).mtimeMs))
) {
  const started = Date.now()
  console.error("[aide] building the web console (once, after each change of its sources)…")
  const vitePackage = createRequire(join(consoleRoot, "package.json")).resolve("vite/package.json")
  const vite = join(dirname(vitePackage), "bin", "vite.js")
  // Vite prints its steps and the files it wrote: that is the progress shown.
  const build = spawnSync(process.execPath, [vite, "build"], {
    cwd: consoleRoot,
    stdio: ["ignore", "inherit", "inherit"],
  })
  if (build.status !== 0) {
    console.error("[aide] the console build failed (output above); the API starts without it")
  } else console.error(`[aide] console built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

// `pnpm start` runs in this package's folder; keep the data where the user ran the command.
process.env.AIDE_DATA_DIR ??= join(process.env.INIT_CWD ?? workspace, ".aide")
await import(pathToFileURL(bundle).href)

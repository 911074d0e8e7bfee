#!/usr/bin/env node
// `pnpm start`: builds the server when its bundle is missing or older than the sources, then runs it.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const workspace = join(root, "..", "..")
const bundle = join(root, "dist", "main.js")

const newest = (dir) => {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

const sources = [join(root, "src"), join(workspace, "packages", "kernel", "src")]
const stale = !existsSync(bundle) || sources.some((dir) => newest(dir) > statSync(bundle).mtimeMs)
if (stale) {
  console.error("[aide] building the server…")
  // Under `pnpm start`, npm_execpath is pnpm itself: no global pnpm needed.
  const execPath = process.env.npm_execpath
  const [command, args] = execPath ? [process.execPath, [execPath]] : ["pnpm", []]
  const build = spawnSync(command, [...args, "--filter", "@aide/server...", "run", "build"], {
    cwd: workspace,
    stdio: ["ignore", "inherit", "inherit"],
    shell: process.platform === "win32",
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

// `pnpm start` runs in this package's folder; keep the data where the user ran the command.
process.env.AIDE_DATA_DIR ??= join(process.env.INIT_CWD ?? workspace, ".aide")
await import(pathToFileURL(bundle).href)

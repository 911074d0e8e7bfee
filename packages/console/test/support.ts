import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const consoleRoot = join(dirname(fileURLToPath(import.meta.url)), "..")
export const consoleDist = join(consoleRoot, "dist")

const newest = (path: string): number => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))))
}

/** Builds the console unless `dist` is newer than its sources (CI's `pnpm build` already did). */
export const ensureBuilt = () => {
  const index = join(consoleDist, "index.html")
  const sources = ["src", "index.html", "vite.config.ts", "../client/src"].map((path) => join(consoleRoot, path))
  if (existsSync(index) && sources.every((path) => newest(path) <= statSync(index).mtimeMs)) return
  const vite = join(
    dirname(createRequire(join(consoleRoot, "package.json")).resolve("vite/package.json")),
    "bin",
    "vite.js",
  )
  const build = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: consoleRoot,
    stdio: "inherit",
  })
  if (build.status !== 0) throw new Error("the console build failed")
}

/** Debian's Chromium (`.ci/run` installs it); undefined where there is none. */
export const chromiumPath = (): string | undefined => {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  return candidates.find((path): path is string => path !== undefined && existsSync(path))
}

/** Flags for a closed network: no background requests to Google's hosts at start. */
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]

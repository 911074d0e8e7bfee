import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { workspaceRoot } from "../Paths.js"
import { isStale, runBuild } from "./StaleBuild.js"

/** Where the console's sources are, or undefined in an installed package (no build config). */
const consoleRoot = () => {
  const root = join(workspaceRoot, "packages", "console")
  return existsSync(join(root, "package.json")) && existsSync(join(root, "vite.config.ts")) ? root : undefined
}

const isConsoleStale = (root: string) =>
  isStale(
    join(root, "dist", "index.html"),
    ["src", "public", "index.html", "vite.config.ts", "package.json"]
      .map((path) => join(root, path))
      .concat([join(workspaceRoot, "packages", "client", "src")]),
  )

/**
 * Starts building the web console (`packages/console`, served at /app/) with Vite when its static
 * files are missing or older than its sources (or the client's, which it bundles), and returns at
 * once: the server starts meanwhile, its API answering, and /app/ says "building…" until the
 * files are there (`AIDE_CONSOLE_BUILDING`, read by the server in this process). The build's
 * progress is one line when it starts and one when it ends (the server's log runs between). A
 * failed build is reported; the API does not depend on it. Resolves when the build is over.
 */
export const buildConsoleInBackground = (): Promise<void> => {
  const root = consoleRoot()
  if (root === undefined || !isConsoleStale(root)) return Promise.resolve()
  const started = Date.now()
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1)
  process.stderr.write("building the web console in the background: /app/ says so until it is ready\n")
  const quiet = {
    update: () => {},
    done: () => void process.stderr.write(`✓ built the web console (${seconds()} s)\n`),
    fail: () => void process.stderr.write(`✗ the web console build failed (${seconds()} s); the API runs without it\n`),
  }
  process.env.AIDE_CONSOLE_BUILDING = "1"
  const vite = join(dirname(createRequire(join(root, "package.json")).resolve("vite/package.json")), "bin", "vite.js")
  return runBuild(quiet, vite, ["build"], { cwd: root, steps: /$^/ }).then(({ status, output }) => {
    delete process.env.AIDE_CONSOLE_BUILDING
    if (status === 0) return quiet.done()
    // Stopped by a signal (Ctrl-C reaches the whole process group): the next start builds it again.
    if (status === null) return
    quiet.fail()
    process.stderr.write(output)
  })
}

import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { progress } from "../Output.js"
import { workspaceRoot } from "../Paths.js"
import { isStale, runBuild } from "./StaleBuild.js"

/**
 * Builds the web console (`packages/console`, served at /app/) with Vite when its static files
 * are missing or older than its sources (or the client's, which it bundles). A failed build is
 * reported and the server starts without the console: the API does not depend on it.
 */
export const buildConsoleWhenStale = async (): Promise<void> => {
  const root = join(workspaceRoot, "packages", "console")
  if (!existsSync(join(root, "package.json")) || !existsSync(join(root, "vite.config.ts"))) return
  const sources = ["src", "public", "index.html", "vite.config.ts", "package.json"]
    .map((path) => join(root, path))
    .concat([join(workspaceRoot, "packages", "client", "src")])
  if (!isStale(join(root, "dist", "index.html"), sources)) return
  const step = progress("building the web console (once, after each change of its sources)")
  const vite = join(dirname(createRequire(join(root, "package.json")).resolve("vite/package.json")), "bin", "vite.js")
  // Vite's steps ("transforming", "rendering chunks", "built in") are the progress shown.
  const { status, output } = await runBuild(step, vite, ["build"], {
    cwd: root,
    steps: /transforming|rendering|built in/,
  })
  if (status === 0) {
    step.done("built the web console")
    return
  }
  step.fail("the web console build failed; the API starts without it")
  process.stderr.write(output)
}

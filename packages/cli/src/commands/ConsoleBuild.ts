import { spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { stripVTControlCharacters } from "node:util"
import { progress } from "../Output.js"
import { workspaceRoot } from "../Paths.js"

const newest = (path: string): number => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

/**
 * Builds the web console (`packages/console`, served at /app/) with Vite when its static files
 * are missing or older than its sources (or the client's, which it bundles). A failed build is
 * reported and the server starts without the console: the API does not depend on it.
 */
export const buildConsoleWhenStale = async (): Promise<void> => {
  const root = join(workspaceRoot, "packages", "console")
  if (!existsSync(join(root, "package.json")) || !existsSync(join(root, "vite.config.ts"))) return
  const index = join(root, "dist", "index.html")
  const sources = ["src", "public", "index.html", "vite.config.ts", "package.json"]
    .map((path) => join(root, path))
    .concat([join(workspaceRoot, "packages", "client", "src")])
  if (existsSync(index) && sources.every((path) => newest(path) <= statSync(index).mtimeMs)) return
  const step = progress("building the web console (once, after each change of its sources)")
  const vite = join(dirname(createRequire(join(root, "package.json")).resolve("vite/package.json")), "bin", "vite.js")
  const output: Array<Buffer> = []
  const status = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [vite, "build"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    // Vite's steps ("transforming", "rendering chunks", "built in") are the progress shown.
    const onData = (chunk: Buffer) => {
      output.push(chunk)
      for (const line of stripVTControlCharacters(chunk.toString("utf8")).split("\n"))
        if (/transforming|rendering|built in/.test(line)) step.update(line.trim())
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", resolve)
  })
  if (status === 0) {
    step.done("built the web console")
    return
  }
  step.fail("the web console build failed; the API starts without it")
  process.stderr.write(Buffer.concat(output))
}

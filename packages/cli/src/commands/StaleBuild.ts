import { spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { stripVTControlCharacters } from "node:util"
import type { progress } from "../Output.js"

const newest = (path: string): number => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

/** Whether `output` is missing or older than any file under `sources`. */
export const isStale = (output: string, sources: ReadonlyArray<string>): boolean =>
  !existsSync(output) || sources.some((path) => newest(path) > statSync(output).mtimeMs)

/**
 * Runs a build tool's script with Node, showing the lines matching `steps` as progress; its
 * whole output is kept for a failure. Resolves with its exit status and that output.
 */
export const runBuild = (
  step: Pick<ReturnType<typeof progress>, "update">,
  script: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv; readonly steps: RegExp },
): Promise<{ readonly status: number | null; readonly output: Buffer }> => {
  const output: Array<Buffer> = []
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    })
    const onData = (chunk: Buffer) => {
      output.push(chunk)
      for (const line of stripVTControlCharacters(chunk.toString("utf8")).split("\n"))
        if (options.steps.test(line)) step.update(line.trim())
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", (status) => resolve({ status, output: Buffer.concat(output) }))
  })
}

/** Running the `aide` command line as a user does: `node packages/cli/bin/aide.mjs …`, in a process of its own. */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../../../..", import.meta.url))
export const bin = join(root, "packages/cli/bin/aide.mjs")

export interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A private home for one test file: its credentials file (`AIDE_CLI_CONFIG`) and scratch files. */
export const home = () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-cli-"))
  return {
    dir,
    credentials: join(dir, "config", "cli.json"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The environment of a CLI process: this one's, minus what would steer it, plus `env`. */
export const cliEnv = (env: Record<string, string | undefined> = {}) => {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(AIDE_.*|DATABASE_URL|PORT|HOST|NO_COLOR|FORCE_COLOR|INIT_CWD)$/.test(name),
    ),
  )
  return { ...clean, ...env } as Record<string, string>
}

/** Runs `aide <args>` to its end, with `input` on standard input. */
export const aide = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string | undefined>; readonly input?: string; readonly cwd?: string } = {},
): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? root,
      env: cliEnv(options.env),
      stdio: ["pipe", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })

/** Builds the CLI once before the suites (bin/aide.mjs builds it when stale). */
export const buildOnce = () => {
  const result = spawnSync(process.execPath, [bin, "--version"], { cwd: root, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`building the CLI failed:\n${result.stderr}`)
}

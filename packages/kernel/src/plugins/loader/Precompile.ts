import { spawn } from "node:child_process"
import { promises as fs } from "node:fs"
import * as path from "node:path"
import { Data, Effect } from "effect"
import { codeCacheFlags, memoryFlags, runnerPaths } from "../sandbox/RunnerPaths.js"

/**
 * Compiling a sandboxed plugin's modules before its process starts (runtime/precompile.mjs), so
 * the process evaluates precompiled records and never loads the module transformer (Babel):
 * that is most of a compartment process's start time and memory (docs/plugin-sandbox.md).
 * The compile runs in a child process (never on the server's event loop), under the permission
 * model, with a memory cap and a deadline; records are kept by content hash, so enabling the
 * plugin again, or restarting its process, compiles nothing.
 */

export class PrecompileError extends Data.TaggedError("PrecompileError")<{ readonly message: string }> {}

export interface PrecompileRequest {
  readonly directory: string
  /** Entry modules, relative to `directory`. */
  readonly entries: ReadonlyArray<string>
  /** The plugin's own records folder (its unused records are removed). */
  readonly cacheDir: string
  /**
   * The plugin process's `--max-old-space-size`: the compile runs with the same, since V8 takes
   * SES's code cache (written here) only from a process with the same flags. Default 256.
   */
  readonly memoryMb?: number
}

export interface PrecompileSummary {
  readonly modules: number
  readonly compiled: number
  readonly failed: number
}

export const limits = { timeoutMs: 30_000, memoryMb: 256, outputBytes: 64 * 1024 }

/** A compile given less memory than this would fail: it runs with the default instead (no code cache then). */
const minimumMemoryMb = 128

const run = async (request: PrecompileRequest, signal: AbortSignal): Promise<PrecompileSummary> => {
  const { runner, readable, bundled } = await runnerPaths()
  await fs.mkdir(request.cacheDir, { recursive: true, mode: 0o700 })
  const cacheDir = await fs.realpath(request.cacheDir)
  const directory = await fs.realpath(request.directory)
  const script = path.join(path.dirname(runner.compartment), "precompile.mjs")
  const argv = [
    "--experimental-permission",
    "--disable-warning=ExperimentalWarning",
    ...[...readable, directory, cacheDir].map((p) => `--allow-fs-read=${p}`),
    `--allow-fs-write=${cacheDir}`,
    ...codeCacheFlags,
    ...memoryFlags(
      request.memoryMb !== undefined && request.memoryMb >= minimumMemoryMb ? request.memoryMb : limits.memoryMb,
    ),
    script,
    // The code cache it writes is the first script's of the plugin process: the bundle's or SES's.
    JSON.stringify({ directory, entries: request.entries, cacheDir, bundled }),
  ]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: directory, env: {}, stdio: ["ignore", "pipe", "pipe"], signal })
    let stdout = ""
    let stderr = ""
    const take = (into: "out" | "err") => (chunk: Buffer) => {
      if (into === "out" && stdout.length < limits.outputBytes) stdout += chunk.toString("utf8")
      if (into === "err" && stderr.length < limits.outputBytes) stderr += chunk.toString("utf8")
    }
    child.stdout.on("data", take("out"))
    child.stderr.on("data", take("err"))
    const timer = setTimeout(() => child.kill("SIGKILL"), limits.timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code, killedBy) => {
      clearTimeout(timer)
      if (code === 0) {
        try {
          return resolve(JSON.parse(stdout) as PrecompileSummary)
        } catch {
          return reject(new Error("unreadable answer"))
        }
      }
      const why = killedBy === "SIGKILL" ? `stopped after ${limits.timeoutMs} ms` : `exited with ${code ?? killedBy}`
      // The error's own line is the reason (the stack around it would name the host's paths).
      const lines = stderr.split("\n")
      const resource = lines.find((line) => /^\s*resource: /.test(line))?.trim()
      const error = lines.find((line) => /^[A-Za-z]*Error\b/.test(line))
      const reason = error === undefined ? undefined : resource === undefined ? error : `${error} (${resource})`
      reject(new Error(reason === undefined ? why : `${why}: ${reason.slice(0, 500)}`))
    })
  })
}

export const precompile = (request: PrecompileRequest): Effect.Effect<PrecompileSummary, PrecompileError> =>
  Effect.tryPromise({
    try: (signal) => run(request, signal),
    catch: (error) => new PrecompileError({ message: error instanceof Error ? error.message : String(error) }),
  })

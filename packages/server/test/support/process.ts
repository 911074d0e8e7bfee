/** Spawning the built `aide-server` process (`dist/main.js`) as an operator runs it. */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

export const root = fileURLToPath(new URL("../../../..", import.meta.url))
export const main = join(root, "packages/server/dist/main.js")

/** Newest modification time under `path` (files only), 0 if it does not exist. */
const newestChange = (path: string): number => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).map((entry) => newestChange(join(path, entry))))
}

const isFresh = () => {
  const sources = ["kernel", "server"].flatMap((name) =>
    ["src", "package.json", "tsup.config.ts"].map((entry) => join(root, "packages", name, entry)),
  )
  return newestChange(main) > Math.max(...sources.map(newestChange))
}

const buildLock = join(root, "node_modules/.aide-test-build-lock")

/**
 * Builds the kernel and the server unless `dist/main.js` is newer than everything it is built from.
 * Asynchronous (a synchronous build starves the test worker's RPC), and one build at a time
 * across test files: the lock is a directory, created atomically, stale after 5 minutes.
 */
export const ensureBuilt = async (): Promise<void> => {
  if (isFresh()) return
  for (;;) {
    try {
      mkdirSync(buildLock)
      break
    } catch {
      if (existsSync(buildLock) && Date.now() - statSync(buildLock).mtimeMs > 300_000)
        rmSync(buildLock, { force: true, recursive: true })
      else await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  try {
    if (isFresh()) return
    await promisify(execFile)("npx", ["-y", "pnpm@10.20.0", "--filter", "@aide/server...", "run", "build"], {
      cwd: root,
      timeout: 300_000,
    })
  } finally {
    rmSync(buildLock, { force: true, recursive: true })
  }
}

export interface LogLine {
  readonly message: unknown
  readonly logLevel: string
  readonly timestamp: string
  readonly annotations: Record<string, unknown>
}

/** A running `node packages/server/dist/main.js`, with everything it printed so far. */
export interface AideProcess {
  readonly child: ChildProcess
  readonly stdout: Array<string>
  readonly stderr: Array<string>
  /** Resolves once the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  /** Resolves with the first JSON log line whose message is `message`. */
  readonly logged: (message: string) => Promise<LogLine>
}

const running = new Set<ChildProcess>()

/** SIGKILLs every process spawned here that is still running (for `afterEach`). */
export const killAll = () => {
  for (const child of running) child.kill("SIGKILL")
}

/** The process as an operator runs it: configured by the environment only. */
export const spawnServer = (env: Record<string, string>): AideProcess => {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|DATABASE_URL|REDIS_URL|AIDE_.*)$/.test(name)),
  )
  const child = spawn(process.execPath, [main], {
    cwd: root,
    env: { ...inherited, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  running.add(child)
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const waiters: Array<() => void> = []
  const collect = (into: Array<string>) => {
    let partial = ""
    return (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n")
      partial = lines.pop() ?? ""
      into.push(...lines)
      for (const wake of waiters.splice(0)) wake()
    }
  }
  child.stdout!.on("data", collect(stdout))
  child.stderr!.on("data", collect(stderr))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      running.delete(child)
      for (const wake of waiters.splice(0)) wake()
      resolve({ code, signal })
    }),
  )
  const logged = async (message: string) => {
    for (;;) {
      for (const line of stdout) {
        try {
          const parsed = JSON.parse(line) as LogLine
          if (parsed.message === message) return parsed
        } catch {
          // not JSON: the JSON-lines test reports it
        }
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        const how = `code ${child.exitCode}, signal ${child.signalCode}`
        throw new Error(`exited (${how}) before logging "${message}":\n${[...stdout, ...stderr].join("\n")}`)
      }
      await new Promise<void>((wake) => waiters.push(wake))
    }
  }
  return { child, stdout, stderr, exited, logged }
}

/** Starts the process and waits until it listens; returns its base URL. */
export const startServer = async (env: Record<string, string>) => {
  const server = spawnServer(env)
  const listening = await server.logged("listening")
  return { ...server, url: String(listening.annotations.url) }
}

/** Waits for the exit, failing after `ms`. */
export const exitWithin = (server: AideProcess, ms: number) =>
  Promise.race([
    server.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still running after ${ms} ms:\n${server.stdout.join("\n")}`)), ms),
    ),
  ])

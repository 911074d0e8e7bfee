import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { eventually } from "../../server/test/support/chat.js"
import { password } from "../../server/test/support/server.js"
import { latestMigration } from "../src/Sqlite.js"
import { aide, bin, cliEnv, home, root } from "./support/cli.js"

const hasTmux = spawnSync("tmux", ["-V"]).status === 0

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

describe("aide start", () => {
  it("runs the server (built first when stale) until Ctrl-C, then exits 0", async () => {
    const user = home()
    const child = spawn(process.execPath, [bin, "start"], {
      cwd: user.dir,
      env: cliEnv({ PORT: "0", HOST: "127.0.0.1", AIDE_LOG_FORMAT: "json" }),
      stdio: ["ignore", "pipe", "pipe"],
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    try {
      const listening = await eventually(
        () => output.split("\n").find((line) => line.includes('"message":"listening"')),
        { timeoutMs: 90_000, intervalMs: 100 },
      )
      const { annotations } = JSON.parse(listening)
      // Without AIDE_DATA_DIR, the data stays where the command was run.
      expect(annotations.dataDir).toBe(join(user.dir, ".aide"))
      expect(statSync(join(user.dir, ".aide")).mode & 0o777).toBe(0o700)
      expect((await fetch(`${annotations.url}/`)).status).toBe(200)
      child.kill("SIGINT")
      expect(await exited).toBe(0)
    } finally {
      child.kill("SIGKILL")
      user.remove()
    }
  }, 120_000)

  it("the root package.json's start script is aide start, with glibc's malloc thresholds held (an owner's value kept)", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts
    const command = "exec node packages/cli/bin/aide.mjs start"
    expect(scripts.start.endsWith(command)).toBe(true)
    // What the script's shell (.npmrc: bash) hands Node's environment.
    const handed = (env: Record<string, string>) =>
      execFileSync("bash", ["-c", scripts.start.replace(command, "exec env")], { env, encoding: "utf8" }).split("\n")
    expect(handed({})).toContain("MALLOC_TRIM_THRESHOLD_=131072")
    expect(handed({ MALLOC_TRIM_THRESHOLD_: "262144" })).toContain("MALLOC_TRIM_THRESHOLD_=262144")
  })
})

describe.skipIf(!hasTmux)("npx -y pnpm@10.20.0 start, in a terminal, as the README runs it", () => {
  it("doctor and backup find its data directory through the login; Ctrl-C ends it and npx exits 0", async () => {
    const user = home()
    const socket = `aide-start-test-${process.pid}`
    const tmux = (args: ReadonlyArray<string>) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" })
    try {
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      const dataDir = join(user.dir, "data")
      const elsewhere = join(user.dir, "elsewhere")
      mkdirSync(elsewhere)
      const env = { AIDE_CLI_CONFIG: user.credentials }
      const settings = { ...env, PORT: String(port), HOST: "127.0.0.1", AIDE_DATA_DIR: dataDir, PATH: process.env.PATH }
      const exports = Object.entries(settings)
        .map(([key, value]) => `${key}='${value}'`)
        .join(" ")
      // A pane that stays after its command ends, to read how it ended.
      tmux(["new-session", "-d", "-s", "keeper", "-x", "120", "-y", "40", "sleep 3600"])
      tmux(["set-option", "-g", "remain-on-exit", "on"])
      // npx's own exit status, written by the shell that ran it: tmux 3.3 may never reap a pane
      // process whose terminal closed first, and then reports no status at all. The trap keeps
      // the shell alive through Ctrl-C (a trapped signal is reset to default in its children).
      const statusFile = join(user.dir, "npx-status")
      tmux([
        "new-window",
        "-d",
        "-t",
        "keeper:5",
        `cd '${root}' && trap 'true' INT; env ${exports} npx -y pnpm@10.20.0 start; echo "$?" > '${statusFile}'`,
      ])
      const screen = () => tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", "keeper:5"])
      await eventually(() => (screen().includes(url) ? true : undefined), { timeoutMs: 150_000, intervalMs: 250 })

      // Logged in to it from another folder: doctor and backup use its data, not ./.aide there.
      expect(
        (await aide(["setup", "--url", url, "--password-stdin"], { env, input: password, cwd: elsewhere })).code,
      ).toBe(0)
      const doctor = JSON.parse((await aide(["doctor", "--json"], { env, cwd: elsewhere })).stdout)
      expect(doctor.server).toBe(url)
      expect(doctor.dataDir).toEqual({ path: dataDir, source: `recorded by aide start for ${url}` })
      expect(doctor.checks.find((check: any) => check.name === "database")).toMatchObject({ ok: true })
      expect(doctor.checks.find((check: any) => check.name === "port")).toMatchObject({ ok: true })
      const backup = await aide(["backup", "copy.db", "--json"], { env, cwd: elsewhere })
      expect(backup.code).toBe(0)
      expect(JSON.parse(backup.stdout)).toMatchObject({ dataDir, migration: latestMigration })
      expect(existsSync(join(elsewhere, "copy.db"))).toBe(true)
      expect(existsSync(join(elsewhere, ".aide"))).toBe(false)

      tmux(["send-keys", "-t", "keeper:5", "C-c"])
      const status = await eventually(
        () => (existsSync(statusFile) ? readFileSync(statusFile, "utf8").trim() : undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      )
      expect(screen()).toContain("shutting down")
      // npx exited by itself with 0, not 130 (a signal re-raised by npx or pnpm).
      expect(status).toBe("0")
    } finally {
      spawnSync("tmux", ["-L", socket, "kill-server"])
      user.remove()
    }
  }, 240_000)
})

describe("the CLI's view of the database", () => {
  it("knows the kernel's latest migration (doctor and restore compare with it)", () => {
    const stores = readFileSync(join(root, "packages/kernel/src/stores/Stores.ts"), "utf8")
    const files = [...stores.matchAll(/import \{ schema as \w+ \} from "\.\.\/([\w/]+)\.js"/g)].map((match) => match[1])
    expect(files.length).toBeGreaterThan(10)
    const ids = files.flatMap((file) =>
      [...readFileSync(join(root, `packages/kernel/src/${file}.ts`), "utf8").matchAll(/\{ id: (\d+),/g)].map((match) =>
        Number(match[1]),
      ),
    )
    expect(Math.max(...ids)).toBe(latestMigration)
  })
})

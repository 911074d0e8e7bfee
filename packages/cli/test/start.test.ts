import { spawn } from "node:child_process"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { eventually } from "../../server/test/support/chat.js"
import { latestMigration } from "../src/Sqlite.js"
import { bin, cliEnv, home, root } from "./support/cli.js"

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

  it("the root package.json's start script is aide start", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts
    expect(scripts.start).toBe("exec node packages/cli/bin/aide.mjs start")
  })
})

describe("the CLI's view of the database", () => {
  it("knows the kernel's latest migration (doctor and restore compare with it)", () => {
    const source = readFileSync(join(root, "packages/kernel/src/storage/migrations.ts"), "utf8")
    const ids = [...source.matchAll(/^\s*"(\d{4})_\w+":/gm)].map((match) => Number(match[1]))
    expect(Math.max(...ids)).toBe(latestMigration)
  })
})

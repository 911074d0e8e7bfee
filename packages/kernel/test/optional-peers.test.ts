import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

// SQLite, PostgreSQL and argon2 are optional peers of the kernel (issue 34): a plugin's tests
// install none of them. Here, in a process where none can be resolved, as where none is installed.

const kernel = fileURLToPath(new URL("../", import.meta.url))
const root = Path.join(kernel, "../..")

describe("without the kernel's optional peers", () => {
  it("the kernel and the plugin harness import and run; SQLite and argon2 name the command that installs them", async () => {
    const directory = mkdtempSync(Path.join(tmpdir(), "aide-peers-"))
    const record = Path.join(directory, "refused.txt")
    writeFileSync(record, "")
    const script = `
import { appendFileSync } from "node:fs"
import { Auth, Kernel, PasswordHasher, SqliteStorage } from "@aide/kernel"
import { startPlugin } from "@aide/testing/plugin"
import { Effect, Layer } from "effect"
appendFileSync(${JSON.stringify(record)}, "--- imported\\n")
const result = {}
result.memoryKernelSetUp = await Effect.runPromise(Effect.provide(Effect.flatMap(Auth.Auth, (auth) => auth.isSetup), Kernel.layerMemory()))
result.sqlite = await Effect.runPromise(Effect.flip(Layer.launch(SqliteStorage.layer({ filename: ":memory:" })))).then((error) => error.message)
result.argon2 = await Effect.runPromiseExit(Effect.provide(Effect.flatMap(PasswordHasher.PasswordHasher, (hasher) => hasher.hash("x")), PasswordHasher.layer)).then((exit) => String(exit.cause.defect?.message))
const plugin = await startPlugin({ directory: ${JSON.stringify(Path.join(root, "examples/hello-plugin"))}, config: { greeting: "Hi" } })
try { result.tool = await plugin.callTool("greet", { name: "Ada" }) } finally { await plugin.close() }
console.log("RESULT " + JSON.stringify(result))`
    try {
      // tsx resolves @aide/kernel and @aide/testing/plugin to their sources (the root tsconfig.json's
      // paths); effect, from the kernel's folder.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "--import",
          Path.join(kernel, "test/support/without-natives.mjs"),
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: kernel, env: { ...process.env, AIDE_REFUSED_RECORD: record } },
      )
      const result = JSON.parse(/^RESULT (.*)$/m.exec(stdout)?.[1] ?? "null")
      expect(result).toMatchObject({ memoryKernelSetUp: false, tool: { greeting: "Hi, Ada!" } })
      expect(result.sqlite).toBe(
        "SqliteStorage needs better-sqlite3 and @effect/sql-sqlite-node (optional peers of @aide/kernel), not installed: npm i better-sqlite3@^12.6.2 @effect/sql-sqlite-node@^0.53.0",
      )
      expect(result.argon2).toContain("argon2 (an optional peer of @aide/kernel), not installed: npm i argon2@0.44.0")
      // Importing loaded none of them: they were asked for only when their Layer was used.
      const [atImport, afterwards] = readFileSync(record, "utf8").split("--- imported\n")
      expect(atImport).toBe("")
      expect(afterwards).toContain("@effect/sql-sqlite-node")
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  }, 60_000)
})

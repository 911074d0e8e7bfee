import { execFile } from "node:child_process"
import { symlinkSync } from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { execArgv } from "../../src/plugins/sandbox/Supervised.js"
import { call, cleanup, start, toolsModule, writePlugin } from "./plugin-support.js"

/**
 * Issue 20, finding 11: fs grants are resolved once, against the plugin folder, to real paths;
 * a grant inside the plugin folder does not stop it starting; a symlink in the plugin folder
 * does not widen Node's permission layer.
 */

afterAll(cleanup)

const reader = () =>
  writePlugin({
    "tools.mjs": toolsModule({ read: "return fs.readFile(input.file, 'utf8')", ok: 'return "ok"' }),
    "data/notes.txt": "notes",
  })

describe("fs grants", () => {
  it("a relative grant inside the plugin folder: it starts, and both layers let it read there", async () => {
    const directory = reader()
    const { plugin } = await start({ directory, permissions: { fs: ["data"] } })
    expect(await call(plugin, "read", { file: path.join(directory, "data", "notes.txt") })).toBe("notes")
  })

  it("an absolute grant of a folder inside the plugin folder: it starts and reads", async () => {
    const directory = reader()
    const { plugin } = await start({ directory, permissions: { fs: [path.join(directory, "data")] } })
    expect(await call(plugin, "ok")).toBe("ok")
    expect(await call(plugin, "read", { file: path.join(directory, "data", "notes.txt") })).toBe("notes")
  })
})

describe("a `root -> /` symlink in the plugin folder", () => {
  it("the plugin still starts, and Node's permission layer does not follow the link", async () => {
    const directory = reader()
    symlinkSync("/", path.join(directory, "root"))
    const { plugin } = await start({ directory })
    expect(await call(plugin, "ok")).toBe("ok")
    const flags = await execArgv({
      options: {
        pluginId: "hostile",
        directory,
        trust: "compartment",
        entries: { tools: [], agents: [], channels: [] },
        permissions: {},
        env: {},
        config: {},
      },
      limits: { memoryMb: 64, callTimeoutMs: 1_000, outputBytes: 1024, startTimeoutMs: 1_000 },
    })
    // The same flags, with a probe standing in for code that got past SES.
    const probe = `
      const fs = require("node:fs")
      const tryIt = (f) => { try { f(); return "allowed" } catch (e) { return e.code } }
      console.log(JSON.stringify({
        own: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(directory, "tools.mjs"))})),
        data: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(directory, "data", "notes.txt"))})),
        throughLink: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(directory, "root", "etc", "passwd"))})),
      }))`
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [...flags, "-e", probe], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    )
    expect(JSON.parse(output)).toEqual({ own: "allowed", data: "allowed", throughLink: "ERR_ACCESS_DENIED" })
  })
})

import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { discover } from "../../src/plugins/PluginDiscovery.js"

/**
 * Issue 20, finding 13: a manifest must be a regular file. A symlink to another file (or a pipe)
 * is listed with that problem, and no listing error ever quotes another file's content.
 */

const secret = "SECRET_VALUE=hunter2-do-not-show"

const setup = () => {
  const root = mkdtempSync(join(tmpdir(), "aide-manifest-"))
  const plugins = join(root, "plugins")
  const elsewhere = join(root, "elsewhere.env")
  writeFileSync(elsewhere, `${secret}\n`)
  const folder = (name: string) => {
    mkdirSync(join(plugins, name), { recursive: true })
    return join(plugins, name, "aide.plugin.json")
  }
  symlinkSync(elsewhere, folder("linked"))
  symlinkSync("/proc/self/environ", folder("environ"))
  execFileSync("mkfifo", [folder("fifo")])
  writeFileSync(folder("not-json"), `${secret} {`)
  return plugins
}

describe("manifest files", () => {
  it("a symlink or a pipe is listed as not a regular file, and no problem quotes any file", async () => {
    const plugins = await Effect.runPromise(discover({ pluginsDir: setup() }, "0.1.0"))
    const problems = (id: string) => plugins.find((plugin) => plugin.id === id)?.problems ?? []
    for (const id of ["linked", "environ", "fifo"]) {
      expect(problems(id)).toEqual([
        "aide.plugin.json must be a regular file (not a symbolic link, a device or a pipe)",
      ])
    }
    expect(problems("not-json")).toEqual(["aide.plugin.json is not valid JSON"])
    const everything = JSON.stringify(plugins)
    expect(everything).not.toContain("hunter2")
    expect(everything).not.toContain("PATH=")
  })
})

import { promises as fs } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { precompile } from "../../src/plugins/loader/Precompile.js"
import { runnerPaths } from "../../src/plugins/sandbox/RunnerPaths.js"
import { call, closeAll, fixture, startPlugin } from "./sandbox-support.js"

let cacheRoot: string
beforeAll(async () => {
  cacheRoot = await fs.mkdtemp(path.join(os.tmpdir(), "aide-modules-"))
})
afterAll(async () => {
  await closeAll()
  await fs.rm(cacheRoot, { recursive: true, force: true })
})

const records = async (dir: string) => (await fs.readdir(dir)).filter((name) => name.endsWith(".json")).sort()

describe("precompiled plugin modules", () => {
  it("compiles an entry and what it imports once; a second pass reads the cache", async () => {
    const cacheDir = path.join(cacheRoot, "basic")
    const request = { directory: fixture("basic"), entries: ["tools.mjs"], cacheDir }
    expect(await Effect.runPromise(precompile(request))).toEqual({ modules: 2, compiled: 2, failed: 0 })
    const compiled = await records(cacheDir)
    expect(compiled).toHaveLength(2)
    // and the code cache of the plugin process's first script: the bundled runner (built kernel) or SES
    const first = (await runnerPaths()).bundled ? /^runner-[0-9a-f]+\.v8$/ : /^ses-[0-9a-f]+\.v8$/
    expect((await fs.readdir(cacheDir)).filter((name) => /\.v8$/.test(name))).toEqual([expect.stringMatching(first)])
    expect(await Effect.runPromise(precompile(request))).toEqual({ modules: 2, compiled: 0, failed: 0 })
    expect(await records(cacheDir)).toEqual(compiled)

    const plugin = await startPlugin({ pluginId: "basic", modules: cacheDir })
    expect(await call(plugin, "echo", { text: "hi" })).toEqual({ echoed: "HI" })
  })

  it("the process runs the records it is given (here one replaced by a compile error)", async () => {
    const cacheDir = path.join(cacheRoot, "basic-tampered")
    await Effect.runPromise(precompile({ directory: fixture("basic"), entries: ["tools.mjs"], cacheDir }))
    for (const name of await records(cacheDir)) {
      await fs.writeFile(path.join(cacheDir, name), JSON.stringify({ error: "SyntaxError: from the cache" }))
    }
    const plugin = await startPlugin({ pluginId: "basic", modules: cacheDir })
    const description = await Effect.runPromise(plugin.description)
    expect(description.tools).toEqual([])
    expect(description.alerts).toEqual([{ level: "error", message: "tools.mjs: SyntaxError: from the cache" }])
  })

  it("a module that does not compile is stored as its error, and reported by the process", async () => {
    const cacheDir = path.join(cacheRoot, "sdk")
    // The fixture, with a module that does not parse (kept out of the repository's own checks).
    const directory = path.join(cacheRoot, "plugin-sdk")
    await fs.cp(fixture("sdk"), directory, { recursive: true })
    await fs.writeFile(path.join(directory, "syntax.mjs"), 'export default { id: "broken", execute: () => {\n')
    const entries = ["tools.mjs", "syntax.mjs", "outside.mjs"]
    const summary = await Effect.runPromise(precompile({ directory, entries, cacheDir }))
    // tools.mjs, suffix.mjs, the SDK (aide-plugin.mjs and its split.mjs), syntax.mjs and
    // outside.mjs (whose import is refused at run time)
    expect(summary).toEqual({ modules: 6, compiled: 6, failed: 1 })
    const plugin = await startPlugin({
      pluginId: "sdk",
      directory,
      modules: cacheDir,
      entries: { tools: entries, agents: [], channels: [] },
    })
    const description = await Effect.runPromise(plugin.description)
    expect(description.tools.map((tool) => tool.id)).toEqual(["greet"])
    expect(description.alerts).toEqual([
      { level: "error", message: expect.stringMatching(/^syntax\.mjs: SyntaxError: /) },
      { level: "error", message: expect.stringMatching(/^outside\.mjs: .*"ses" refused/) },
    ])
    expect(await call(plugin, "greet", { name: "Ada" })).toBe("Hello, Ada!")
  })

  it("records of files that changed are replaced, not kept beside the new ones", async () => {
    const directory = await fs.mkdtemp(path.join(cacheRoot, "plugin-"))
    const cacheDir = path.join(cacheRoot, "changing")
    const write = (text: string) => fs.writeFile(path.join(directory, "tools.mjs"), text)
    await write('export default { id: "a", name: "A", execute: () => 1 }')
    await Effect.runPromise(precompile({ directory, entries: ["tools.mjs"], cacheDir }))
    const before = await records(cacheDir)
    await write('export default { id: "b", name: "B", execute: () => 2 }')
    expect(await Effect.runPromise(precompile({ directory, entries: ["tools.mjs"], cacheDir }))).toMatchObject({
      compiled: 1,
    })
    const after = await records(cacheDir)
    expect(after).toHaveLength(1)
    expect(after).not.toEqual(before)
  })

  it("a folder it cannot read is a PrecompileError, not a crash", async () => {
    const failed = await Effect.runPromise(
      Effect.flip(
        precompile({
          directory: path.join(cacheRoot, "missing"),
          entries: ["x.mjs"],
          cacheDir: path.join(cacheRoot, "m"),
        }),
      ),
    )
    expect(failed._tag).toBe("PrecompileError")
  })
})

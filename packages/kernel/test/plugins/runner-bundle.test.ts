import { promises as fs, readFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { build } from "tsup"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { runnerBundle } from "../../tsup.config.js"

/**
 * A built kernel's plugin processes (docs/plugin-sandbox.md, "Start time"): the runner bundled
 * into one CommonJS file, evaluated with a V8 code cache, and still the same sandbox.
 */

const kernel = fileURLToPath(new URL("../../", import.meta.url))
const runtimeDir = path.join(kernel, "runtime")

type Support = typeof import("./sandbox-support.js")
let support: Support
let precompile: typeof import("../../src/plugins/loader/Precompile.js").precompile
let cacheRoot: string

beforeAll(async () => {
  const { usableBundle } = await import("../../src/plugins/sandbox/RunnerPaths.js")
  // The kernel's build (and the root `prepare`) makes it; made here when missing or stale.
  if (!(await usableBundle(runtimeDir))) {
    await build({
      ...runnerBundle,
      entry: { "plugin-runner": path.join(runtimeDir, "bundle-entry.cjs") },
      outDir: path.join(runtimeDir, "dist"),
      config: false,
      silent: true,
    })
    // RunnerPaths decided once per module instance: these modules see the bundle.
    vi.resetModules()
  }
  support = await import("./sandbox-support.js")
  precompile = (await import("../../src/plugins/loader/Precompile.js")).precompile
  cacheRoot = await fs.mkdtemp(path.join(os.tmpdir(), "aide-bundle-"))
})
afterAll(async () => {
  await support.closeAll()
  await fs.rm(cacheRoot, { recursive: true, force: true })
})

/** The node process's command line: a plugin's pid is its wrapper chain's, which execs or forks into node. */
const nodeCommandLine = async (plugin: { readonly pid: Effect.Effect<number | undefined> }): Promise<Array<string>> => {
  let pid = await Effect.runPromise(plugin.pid)
  for (let depth = 0; pid !== undefined && depth < 4; depth++) {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
    if (args[0] === process.execPath) return args
    pid = Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0]) || undefined
  }
  throw new Error("no node process under the plugin's pid")
}

const precompiled = async (pluginId: string) => {
  const cacheDir = path.join(cacheRoot, pluginId)
  const request = { directory: support.fixture(pluginId), entries: ["tools.mjs"], cacheDir }
  await Effect.runPromise(precompile(request))
  return cacheDir
}

describe.runIf(process.platform === "linux")("a built kernel's plugin processes", () => {
  it("a compartment process runs the bundle with its code cache, and loads packages lazily", async () => {
    const cacheDir = await precompiled("basic")
    expect((await fs.readdir(cacheDir)).filter((name) => name.endsWith(".v8"))).toEqual([
      expect.stringMatching(/^runner-[0-9a-f]+\.v8$/),
    ])
    const plugin = await support.startPlugin({ pluginId: "basic", modules: cacheDir })
    const args = await nodeCommandLine(plugin)
    expect(args).toContain(path.join(runtimeDir, "start.cjs"))
    expect(args).toContain("--verify-snapshot-checksum")
    // The input validator is imported on the first call, from code the cache restored.
    expect(await support.call(plugin, "echo", { text: "hi" })).toEqual({ echoed: "HI" })
  })

  it("the bundle's compartment is locked down: every intrinsic frozen, no process, no require", async () => {
    const plugin = await support.startPlugin({ pluginId: "escape", modules: await precompiled("escape") })
    expect(await support.call(plugin, "intrinsics")).toEqual({
      objectPrototype: true,
      arrayPrototype: true,
      toSorted: true,
      resize: true,
      process: "undefined",
      require: "undefined",
    })
    const error = await support.callFails(plugin, "object-prototype")
    expect(error.message).toMatch(/Cannot add property polluted, object is not extensible/)
  })

  it("a damaged code cache is refused and compiled around: the plugin still starts", async () => {
    const cacheDir = await precompiled("secret")
    for (const name of (await fs.readdir(cacheDir)).filter((file) => file.endsWith(".v8"))) {
      const bytes = await fs.readFile(path.join(cacheDir, name))
      // The payload, past V8's header: without the checksum check this aborts the process.
      const middle = Math.floor(bytes.length / 2)
      bytes.set(
        bytes.subarray(middle, middle + 512).map((byte) => byte ^ 0x5a),
        middle,
      )
      await fs.writeFile(path.join(cacheDir, name), bytes)
    }
    const plugin = await support.startPlugin({ pluginId: "secret", modules: cacheDir })
    expect((await Effect.runPromise(plugin.description)).tools.length).toBeGreaterThan(0)
  })

  it("a host-trust process runs the bundle itself, without SES", async () => {
    const plugin = await support.startPlugin({ pluginId: "host", trust: "host" })
    const args = await nodeCommandLine(plugin)
    expect(args).toContain(path.join(runtimeDir, "dist", "plugin-runner.cjs"))
    expect(args).not.toContain("--experimental-permission")
    const description = await Effect.runPromise(plugin.description)
    expect(description.tools.length).toBeGreaterThan(0)
  })
})

describe("which runner a plugin process runs", () => {
  it("the bundle only when it is not older than the runtime's sources", async () => {
    const { usableBundle } = await import("../../src/plugins/sandbox/RunnerPaths.js")
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "aide-runtime-"))
    const runtime = path.join(root, "runtime")
    await fs.mkdir(path.join(runtime, "sdk"), { recursive: true })
    await fs.mkdir(path.join(runtime, "dist"))
    await fs.writeFile(path.join(root, "package.json"), "{}")
    await fs.writeFile(path.join(runtime, "runner.mjs"), "")
    await fs.writeFile(path.join(runtime, "sdk", "aide-plugin.mjs"), "")
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds))
    for (const file of ["package.json", "runtime/runner.mjs", "runtime/sdk/aide-plugin.mjs"]) {
      await fs.utimes(path.join(root, file), at(0), at(0))
    }
    expect(await usableBundle(runtime)).toBe(false) // not built
    await fs.writeFile(path.join(runtime, "dist", "plugin-runner.cjs"), "")
    await fs.utimes(path.join(runtime, "dist", "plugin-runner.cjs"), at(0), at(0))
    expect(await usableBundle(runtime)).toBe(true) // same time: an installed package's files
    await fs.utimes(path.join(runtime, "sdk", "aide-plugin.mjs"), at(5), at(5))
    expect(await usableBundle(runtime)).toBe(false) // a source edited since the build
    await fs.rm(root, { recursive: true, force: true })
  })
})

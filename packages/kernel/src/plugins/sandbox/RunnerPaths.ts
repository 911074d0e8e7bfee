import { promises as fs } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Where the runner is, and what a compartment process may read: the runner's folder and the
 * packages it loads (SES and the module transformer, with their dependencies), nothing else of
 * the host. Computed once per host process.
 */

/** From the bundled dist/index.js, then from src/plugins/sandbox/ (tests run the sources). */
const candidates = ["../runtime/plugin-runner.mjs", "../../../runtime/plugin-runner.mjs"]
const runnerPackages = ["ses", "@endo/module-source", "@cfworker/json-schema"]

/**
 * V8 flags of every plugin process (both trusts), for its memory (docs/plugin-sandbox.md,
 * "Memory"): a young generation of at most 1 MiB per semi-space instead of growing to 16
 * (a start grew it to 2, ~2 MiB of RSS held after `init`; no measurable cost to an
 * allocation-heavy tool's CPU).
 */
export const heapFlags = ["--max-semi-space-size=1"] as const

/**
 * V8 flags of every process that writes or reads a code cache (precompile.mjs, a compartment
 * process), the same in both since V8 refuses a cache made under other flags.
 * `--verify-snapshot-checksum`: V8 checks a cache's checksum and compiles instead of a damaged
 * cache, which without it aborts the process while deserializing (~1 ms of a start).
 * `--interrupt-budget` (4× V8's): SES's `harden` walk over the intrinsics during `lockdown()` no
 * longer reaches TurboFan, whose one compile mapped ~3.5 MiB more of the Node binary's code
 * into every plugin process; a hot tool function is still optimized, a little later.
 */
export const codeCacheFlags = ["--verify-snapshot-checksum", "--interrupt-budget=270336", ...heapFlags] as const

/**
 * The memory cap's V8 flags, for a process capped at `memoryMb`: the old generation, and each
 * WebAssembly memory at most as large (64 KiB pages). Without the second, V8 reserves 4 GiB of
 * address space for a growable memory (undici's HTTP parser, when Node's fetch classes load) or
 * as much as the address-space cap leaves, and the heap's next reservation then fails: a 64 MiB
 * process aborted at start ("Scavenger: semi-space copy Allocation failed").
 */
export const memoryFlags = (memoryMb: number): Array<string> => [
  `--max-old-space-size=${memoryMb}`,
  `--wasm-max-mem-pages=${memoryMb * 16}`,
]

export interface RunnerPaths {
  /** The script a plugin process of each trust runs (the bundled runner's when `bundled`). */
  readonly runner: { readonly compartment: string; readonly host: string }
  /**
   * Whether the kernel's build bundled the runner (runtime/dist/plugin-runner.cjs, newer than
   * the runtime's sources): one CommonJS file, and for a compartment a V8 code cache of it that
   * precompile.mjs writes (docs/plugin-sandbox.md, "Start time"). Else the ES module sources.
   */
  readonly bundled: boolean
  /** `--allow-fs-read` paths of a compartment process, plugin folders excluded. */
  readonly readable: ReadonlyArray<string>
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  )

const locateRunner = async (): Promise<string> => {
  for (const candidate of candidates) {
    const file = fileURLToPath(new URL(candidate, import.meta.url))
    if (await exists(file)) return file
  }
  // Bundled into another package (the server's process bundle takes the kernel from its
  // sources): the runner is still the kernel package's own file, found as a dependency.
  try {
    return createRequire(import.meta.url).resolve("@aide/kernel/runtime/plugin-runner.mjs")
  } catch {
    throw new Error("the plugin runner (runtime/plugin-runner.mjs) is missing from the kernel package")
  }
}

/** The folder of `name` as Node would resolve it from `from`: walks up the node_modules. */
const findPackage = async (name: string, from: string): Promise<string | undefined> => {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name)
    if (await exists(path.join(candidate, "package.json"))) return candidate
    if (path.dirname(dir) === dir) return undefined
  }
}

/** Each package's link and real folder, and the node_modules holding its dependencies' links. */
const packageClosure = async (roots: ReadonlyArray<string>, from: string): Promise<Array<string>> => {
  const readable = new Set<string>()
  const seen = new Set<string>()
  const visit = async (name: string, start: string): Promise<void> => {
    const link = await findPackage(name, start)
    if (link === undefined) throw new Error(`the plugin runner needs ${name}, which is not installed`)
    const real = await fs.realpath(link)
    readable.add(link)
    readable.add(real)
    if (seen.has(real)) return
    seen.add(real)
    // pnpm keeps a package's dependencies as links beside it (…/.pnpm/x@1/node_modules/dep).
    const holder = path.dirname(name.startsWith("@") ? path.dirname(real) : real)
    if (path.basename(holder) === "node_modules") readable.add(holder)
    const manifest = JSON.parse(await fs.readFile(path.join(real, "package.json"), "utf8"))
    for (const dependency of Object.keys(manifest.dependencies ?? {})) await visit(dependency, real)
  }
  for (const name of roots) await visit(name, from)
  return [...readable]
}

/** The newest mtime of the runtime's sources and of the kernel's package.json (SES's version). */
const newestSource = async (runtimeDir: string): Promise<number> => {
  let newest = (await fs.stat(path.join(runtimeDir, "..", "package.json"))).mtimeMs
  for (const dir of [runtimeDir, path.join(runtimeDir, "sdk")]) {
    for (const name of await fs.readdir(dir)) {
      if (/\.(mjs|cjs|js)$/.test(name)) newest = Math.max(newest, (await fs.stat(path.join(dir, name))).mtimeMs)
    }
  }
  return newest
}

/**
 * The bundle, when it is there and not older than the sources it was built from: a runtime file
 * edited since the last build runs from the sources (tests run against the sources, never a
 * stale build).
 */
export const usableBundle = async (runtimeDir: string): Promise<boolean> => {
  const built = await fs.stat(path.join(runtimeDir, "dist", "plugin-runner.cjs")).catch(() => undefined)
  return built !== undefined && built.mtimeMs >= (await newestSource(runtimeDir))
}

let cached: Promise<RunnerPaths> | undefined

export const runnerPaths = (): Promise<RunnerPaths> => {
  cached ??= (async () => {
    const sources = await locateRunner()
    const runtimeDir = path.dirname(sources)
    const readable = await packageClosure(runnerPackages, runtimeDir)
    const bundled = await usableBundle(runtimeDir)
    const runner = bundled
      ? { compartment: path.join(runtimeDir, "start.cjs"), host: path.join(runtimeDir, "dist", "plugin-runner.cjs") }
      : { compartment: sources, host: sources }
    return { runner, bundled, readable: [runtimeDir, ...readable] }
  })()
  cached.catch(() => {
    cached = undefined
  })
  return cached
}

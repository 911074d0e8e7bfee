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

export interface RunnerPaths {
  readonly runner: string
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

let cached: Promise<RunnerPaths> | undefined

export const runnerPaths = (): Promise<RunnerPaths> => {
  cached ??= (async () => {
    const runner = await locateRunner()
    const runtimeDir = path.dirname(runner)
    const readable = await packageClosure(runnerPackages, runtimeDir)
    return { runner, readable: [runtimeDir, ...readable] }
  })()
  cached.catch(() => {
    cached = undefined
  })
  return cached
}

// How a sandboxed plugin's modules are found and compiled, shared by the plugin runner (which
// evaluates them) and precompile.mjs (which compiles them ahead, in a process of its own).
//
// A module is compiled by @endo/module-source (Babel) into a *precompiled module source*: plain
// data SES evaluates without a parser. Records are stored as JSON under a cache folder, named by
// the SHA-256 of the compiler's version, the module's URL and its text: a changed file is a new
// record, and a compartment process that finds every record never loads Babel (~2 s and ~25 MiB
// of a process start otherwise; docs/plugin-sandbox.md).

import { createHash } from "node:crypto"
import { promises as fs, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { cacheName, evaluateCached } from "./code-cache.cjs"

/** Bumped when the record format or the compiler changes: old records are then never read. */
const format = "aide-module-1/@endo/module-source@1.3.3"

/**
 * SES's options, the same for every start (runner, snapshot, precompile.mjs's code cache):
 * docs/plugin-sandbox.md says what each one means for a plugin.
 */
export const lockdownOptions = {
  overrideTaming: "severe",
  errorTaming: "unsafe",
  consoleTaming: "unsafe",
  stackFiltering: "concise",
}

/** The vetted copy of `@aide/plugin`'s runtime, the one package a sandboxed plugin may import. */
export const sdkSpecifier = "@aide/plugin"
export const sdkFile = fileURLToPath(new URL("./sdk/aide-plugin.mjs", import.meta.url))
/** The copy's own folder: its modules (the generated `split.mjs`) may be imported by it. */
const sdkDir = path.dirname(sdkFile)

/** Largest module read, and most modules of one plugin process. */
export const limits = { moduleBytes: 4 * 1024 * 1024, modules: 1000 }

export const within = (root, target) => target === root || target.startsWith(root + path.sep)

/** Where `specifier` imported from `referrer` leads: the plugin's own files, or the SDK. */
export const resolveSpecifier = (specifier, referrer) => {
  if (specifier === sdkSpecifier) return pathToFileURL(sdkFile).href
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
    throw new Error(
      `import of "${specifier}" refused: a sandboxed plugin may only import its own files and "${sdkSpecifier}"`,
    )
  }
  return new URL(specifier, referrer).href
}

/** The module file behind a resolved URL, refused outside the plugin folder `root`. */
export const moduleFile = async (root, url) => {
  const file = await fs.realpath(fileURLToPath(url)).catch(() => {
    throw new Error(`module ${url} not found`)
  })
  if (!within(sdkDir, file) && !within(root, file))
    throw new Error(`import of ${url} refused: outside the plugin folder`)
  const stat = await fs.stat(file)
  if (stat.size > limits.moduleBytes) throw new Error(`module ${url} is larger than ${limits.moduleBytes} bytes`)
  return file
}

/** The record's name in the cache: one per (compiler, URL, text). */
export const recordKey = (url, text) => createHash("sha256").update(`${format}\0${url}\0${text}`).digest("hex")

export const recordPath = (cacheDir, key) => path.join(cacheDir, `${key}.json`)

/**
 * What `ModuleSource` made of a module, as JSON: its fields are data, and SES evaluates
 * `__syncModuleProgram__` in the module's compartment as it would the live object's.
 * A module that does not compile is stored too, as its error: the runner reports it as is.
 */
export const compile = (ModuleSource, url, text) => {
  try {
    const source = new ModuleSource(text, url)
    return {
      imports: source.imports,
      exports: source.exports,
      reexports: source.reexports,
      __syncModuleProgram__: source.__syncModuleProgram__,
      __liveExportMap__: source.__liveExportMap__,
      __reexportMap__: source.__reexportMap__,
      __fixedExportMap__: source.__fixedExportMap__,
      __needsImport__: source.__needsImport__,
      __needsImportMeta__: source.__needsImportMeta__,
    }
  } catch (error) {
    return { error: `${error?.name ?? "Error"}: ${error?.message ?? String(error)}` }
  }
}

/** A stored record, or undefined when there is none (or it cannot be read). */
export const readRecord = async (cacheDir, key) => {
  try {
    return JSON.parse(await fs.readFile(recordPath(cacheDir, key), "utf8"))
  } catch {
    return undefined
  }
}

/**
 * Why a module did not load, for the plugin's listing: SES's "Failed to load module … (1
 * underlying failures: X" wrapper reduced to X, and the plugin folder's URL to relative paths
 * (the host's folders are none of the listing's business).
 */
export const loadFailure = (message, root) => {
  const inner = /\(\d+ underlying failures?: ([\s\S]*)$/.exec(message)
  const reason = inner === null ? message : inner[1]
  return reason.replaceAll(`${pathToFileURL(root).href}/`, "")
}

/**
 * Evaluates SES (defining `lockdown`, `harden`, `Compartment`), with the code cache found in
 * `cacheDir`. Returns what `precompile.mjs` needs to write that cache.
 */
export const loadSes = (cacheDir) => {
  // SES as its one-file CommonJS bundle: its ~60 ES modules cost more to load than lockdown itself.
  const sesFile = createRequire(import.meta.url).resolve("ses")
  const text = readFileSync(sesFile, "utf8")
  const name = cacheName("ses", text)
  const { script } = evaluateCached({ file: sesFile, text, name, cacheDir, requireFn: createRequire(sesFile) })
  return { script, name }
}

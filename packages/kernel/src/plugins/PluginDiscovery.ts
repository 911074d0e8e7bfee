import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { Effect, Either, Schema } from "effect"
import { describeParseError } from "../validation/Problems.js"
import { PluginManifest } from "./PluginManifest.js"

/**
 * Finding plugins: folders holding an `aide.plugin.json`, read and checked without running any
 * plugin code. Only the places named are looked at (never the working directory), and every
 * problem is reported on the plugin it concerns — a bad manifest never stops the listing.
 */

const manifestFile = "aide.plugin.json"

/** Largest manifest read. */
const maxManifestBytes = 64 * 1024

/** Most plugin folders looked at in one scan. */
const maxPlugins = 500

export type PluginSource = "data" | "npm" | "path" | "bundled"

export interface DiscoveredPlugin {
  /** The manifest's id; the folder name when the manifest cannot be read. */
  readonly id: string
  readonly directory: string
  readonly source: PluginSource
  readonly manifest: PluginManifest | null
  /** Why the plugin cannot be used as it is (empty when it can). */
  readonly problems: ReadonlyArray<string>
}

export interface DiscoveryRoots {
  /** `<dataDir>/plugins`: plugin folders, and npm packages in its `node_modules`. */
  readonly pluginsDir?: string
  /** Folders of `AIDE_PLUGINS_PATH`: each a plugin folder, or a folder of plugin folders. */
  readonly paths?: ReadonlyArray<string>
  /** Plugin folders shipped with the server. */
  readonly bundled?: ReadonlyArray<string>
}

const decodeManifest = Schema.decodeUnknownEither(PluginManifest, { errors: "all", onExcessProperty: "error" })

const isDirectory = (path: string) =>
  Fs.stat(path).then(
    (stat) => stat.isDirectory(),
    () => false,
  )
/** A manifest entry of any kind but a folder (a symlink or a pipe is listed with its problem). */
const hasManifest = (directory: string) =>
  Fs.lstat(Path.join(directory, manifestFile)).then(
    (stat) => !stat.isDirectory(),
    () => false,
  )

const notRegular = `${manifestFile} must be a regular file (not a symbolic link, a device or a pipe)`

/**
 * The manifest's text, or why it cannot be read. Only a regular file, opened without following a
 * symlink (O_NOFOLLOW) and without blocking on a pipe (O_NONBLOCK), then checked again on the open
 * handle: a manifest can never make the listing read, or quote, another file.
 */
const readManifestText = async (file: string): Promise<{ text: string } | { problem: string }> => {
  const stat = await Fs.lstat(file)
  if (!stat.isFile()) return { problem: notRegular }
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = Fs.constants
  const handle = await Fs.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(() => undefined)
  if (handle === undefined) return { problem: notRegular }
  try {
    const opened = await handle.stat()
    if (!opened.isFile()) return { problem: notRegular }
    const buffer = Buffer.alloc(maxManifestBytes + 1)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    if (bytesRead > maxManifestBytes) return { problem: `${manifestFile} is larger than 64 KiB` }
    return { text: buffer.subarray(0, bytesRead).toString("utf8") }
  } finally {
    await handle.close()
  }
}

/** Where JSON.parse stopped, never the text around it (V8 quotes the start of the input). */
const jsonProblem = (error: unknown) => {
  const position = error instanceof Error ? /position (\d+)/.exec(error.message)?.[1] : undefined
  return `${manifestFile} is not valid JSON${position === undefined ? "" : ` (at character ${position})`}`
}

/** Sub-folders of `directory` (dot folders and `node_modules` aside), sorted. */
const subfolders = async (directory: string): Promise<Array<string>> => {
  const entries = await Fs.readdir(directory, { withFileTypes: true }).catch(() => [])
  const names = entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .filter((name) => name !== "node_modules")
    .sort()
  const folders: Array<string> = []
  for (const name of names) if (await isDirectory(Path.join(directory, name))) folders.push(Path.join(directory, name))
  return folders
}

/** npm packages under `node_modules`, scoped ones (`@scope/name`) included. */
const npmPackages = async (nodeModules: string): Promise<Array<string>> => {
  const packages: Array<string> = []
  for (const folder of await subfolders(nodeModules)) {
    if (Path.basename(folder).startsWith("@")) packages.push(...(await subfolders(folder)))
    else packages.push(folder)
  }
  return packages
}

/** Every folder that holds a manifest, with where it was found. */
const candidates = async (roots: DiscoveryRoots) => {
  const found: Array<{ readonly directory: string; readonly source: PluginSource }> = []
  const add = async (directory: string, source: PluginSource) => {
    if (await hasManifest(directory)) found.push({ directory, source })
  }
  for (const directory of roots.bundled ?? []) await add(directory, "bundled")
  if (roots.pluginsDir !== undefined) {
    for (const folder of await subfolders(roots.pluginsDir)) await add(folder, "data")
    for (const folder of await npmPackages(Path.join(roots.pluginsDir, "node_modules"))) await add(folder, "npm")
  }
  for (const path of roots.paths ?? []) {
    if (await hasManifest(path)) found.push({ directory: path, source: "path" })
    else for (const folder of await subfolders(path)) await add(folder, "path")
  }
  return found.slice(0, maxPlugins)
}

/** The manifest of `directory`, or why it cannot be used. */
const readManifest = async (directory: string, aideVersion: string) => {
  const read = await readManifestText(Path.join(directory, manifestFile))
  if ("problem" in read) return { manifest: null, problems: [read.problem] }
  let json: unknown
  try {
    json = JSON.parse(read.text)
  } catch (error) {
    return { manifest: null, problems: [jsonProblem(error)] }
  }
  const decoded = decodeManifest(json)
  if (Either.isLeft(decoded)) {
    const id = typeof (json as { id?: unknown })?.id === "string" ? (json as { id: string }).id : undefined
    const problems = describeParseError(decoded.left, "manifest").map((problem) => `${manifestFile}: ${problem}`)
    return { manifest: null, id, problems }
  }
  const manifest = decoded.right
  const problems: Array<string> = []
  if (manifest.aide !== undefined) {
    // Loaded here, not at start: only a manifest that names a range needs it (issue 38).
    const { default: Semver } = await import("semver")
    if (Semver.validRange(manifest.aide) === null)
      problems.push(`manifest.aide: ${manifest.aide} is not a semver range`)
    else if (!Semver.satisfies(aideVersion, manifest.aide, { includePrerelease: true })) {
      problems.push(`requires Aide ${manifest.aide}; this is Aide ${aideVersion}`)
    }
  }
  return { manifest, problems }
}

/** Every plugin of `roots`; a second plugin with an id already seen is listed with that problem. */
export const discover = (roots: DiscoveryRoots, aideVersion: string): Effect.Effect<ReadonlyArray<DiscoveredPlugin>> =>
  Effect.promise(async () => {
    const plugins: Array<DiscoveredPlugin> = []
    const seen = new Map<string, string>()
    for (const { directory, source } of await candidates(roots)) {
      const read = await readManifest(directory, aideVersion).catch((error: unknown) => ({
        manifest: null,
        problems: [`${manifestFile} could not be read (${error instanceof Error ? error.message : "unknown error"})`],
      }))
      const id = read.manifest?.id ?? ("id" in read && typeof read.id === "string" ? read.id : Path.basename(directory))
      const earlier = seen.get(id)
      const problems =
        earlier === undefined ? read.problems : [...read.problems, `another plugin has the id ${id} (${earlier})`]
      if (earlier === undefined) seen.set(id, directory)
      plugins.push({ id, directory, source, manifest: read.manifest, problems })
    }
    return plugins
  })

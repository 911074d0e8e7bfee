import { join } from "node:path"
import { Failure } from "./Output.js"
import { printable } from "./Printable.js"

/**
 * The manifest's rule for a plugin id (`pluginIdPattern` in the kernel's PluginManifest.ts, which
 * the CLI does not bundle; a test holds the two equal). It makes an id one path segment: no slash
 * or backslash, never `.` or `..`.
 */
export const pluginIdPattern = /^[a-z0-9][a-z0-9._-]{0,63}$/

export const idRule = "lower-case letters, digits, . _ - (at most 64, starting with a letter or digit)"

export const isPluginId = (id: unknown): id is string => typeof id === "string" && pluginIdPattern.test(id)

/** Why `id` (read from a manifest: anything) is refused, printable. */
export const notAnId = (id: unknown) => `${printable(JSON.stringify(id) ?? String(id))} is not a plugin id: ${idRule}`

/**
 * `parent/id`, the one way the CLI turns an id into a path: an id that is not one (`../x`) fails
 * here rather than naming a file outside `parent`, whatever the caller checked before.
 */
export const folderOf = (parent: string, id: string): string => {
  if (!isPluginId(id)) throw new Failure(notAnId(id))
  return join(parent, id)
}

import { promises as fs } from "node:fs"
import * as path from "node:path"

/**
 * A plugin's `permissions.fs`, resolved once in the host: a relative path against the plugin
 * folder, then to its real path (symlinks resolved), so that the Node permission layer and the
 * compartment's `fs` endowment judge the very same absolute folders. A path that does not exist
 * grants nothing (reported back to be logged).
 */
export const resolveFsGrants = async (
  directory: string,
  grants: ReadonlyArray<string>,
): Promise<{ readonly fs: ReadonlyArray<string>; readonly missing: ReadonlyArray<string> }> => {
  const resolved: Array<string> = []
  const missing: Array<string> = []
  for (const grant of grants) {
    const real = await fs.realpath(path.resolve(directory, grant)).catch(() => undefined)
    if (real === undefined) missing.push(grant)
    else if (!resolved.includes(real)) resolved.push(real)
  }
  return { fs: resolved, missing }
}

const maxEntries = 5_000

const under = (root: string, target: string) => target.startsWith(root.endsWith(path.sep) ? root : root + path.sep)
const coveredBy = (roots: ReadonlyArray<string>, target: string) =>
  roots.some((root) => root === target || under(root, target))

/**
 * The `--allow-fs-read` paths of a compartment process. Node's permission layer matches path
 * strings and follows symlinks, so granting the plugin folder whole would let a `root -> /` link
 * inside it open everything; and on Node 20 a grant nested in another one (an fs grant inside
 * the plugin folder) withdraws part of the outer one. So: the plugin folder is granted entry by
 * entry (a subfolder with no symlink in it whole), symlinks never (their targets inside the
 * folder are granted as themselves; the runner imports by real path), and no path is granted
 * inside another granted path.
 */
export const permissionPaths = async (
  directory: string,
  fsGrants: ReadonlyArray<string>,
  runnerReadable: ReadonlyArray<string>,
): Promise<Array<string>> => {
  const root = await fs.realpath(directory)
  const { fs: grants } = await resolveFsGrants(root, fsGrants)
  const others = [...runnerReadable, ...grants]
  let entries = 0
  const walk = async (dir: string): Promise<{ readonly paths: Array<string>; readonly whole: boolean }> => {
    if (coveredBy(others, dir)) return { paths: [], whole: false }
    const paths: Array<string> = []
    let whole = !others.some((other) => under(dir, other))
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      entries += 1
      if (entries > maxEntries) throw new Error(`the plugin folder holds more than ${maxEntries} files and folders`)
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        const inner = await walk(file)
        paths.push(...inner.paths)
        whole &&= inner.whole
      } else if (entry.isFile()) {
        if (!coveredBy(others, file)) paths.push(file)
      } else {
        // A symlink (or a socket, a fifo): never granted as a name.
        whole = false
      }
    }
    return whole ? { paths: [dir], whole: true } : { paths, whole: false }
  }
  const plugin = (await walk(root)).paths
  const all = [...new Set([...others, ...plugin])]
  return all.filter((candidate) => !all.some((other) => other !== candidate && under(other, candidate)))
}

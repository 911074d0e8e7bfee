import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * Where stdio servers run. Never Aide's own working directory: `npx` there resolves packages
 * against Aide's `node_modules` (under `pnpm start`, the README's server-everything example
 * failed with "mcp-server-everything: not found").
 */

/** `~` and `~/…` are the user's home; anything else is taken as given (the schema wants it absolute). */
export const workingDirectory = (configured: string | undefined, fallback: string) => {
  if (configured === undefined) return fallback
  if (configured === "~") return Os.homedir()
  if (configured.startsWith("~/")) return Path.join(Os.homedir(), configured.slice(2))
  return configured
}

export const isDirectory = (path: string) => {
  try {
    return Fs.statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The default working directory of stdio servers: the user's home, as a terminal would start in. */
export const defaultWorkingDirectory = (): string => {
  const home = Os.homedir()
  return isDirectory(home) ? home : Os.tmpdir()
}

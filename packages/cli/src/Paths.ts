import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The CLI package's folder (`dist/main.js` and `src/*.ts` are both one level below it). */
export const cliRoot = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The repository (or install) root holding `packages/server`, when the CLI runs from a clone. */
export const workspaceRoot = join(cliRoot, "..", "..")

/**
 * The server package: beside the CLI (a clone, or npm's flat node_modules), else wherever this
 * package's dependency `@aide/server` resolves (a nested or pnpm install).
 */
export const serverRoot = () => {
  const beside = join(cliRoot, "..", "server")
  if (existsSync(join(beside, "package.json"))) return beside
  try {
    return dirname(createRequire(join(cliRoot, "package.json")).resolve("@aide/server/package.json"))
  } catch {
    return undefined
  }
}

/** Where `aide login` keeps its token: `AIDE_CLI_CONFIG`, else `<config dir>/aide/cli.json`. */
export const credentialsFile = () => {
  if (process.env.AIDE_CLI_CONFIG) return resolve(process.env.AIDE_CLI_CONFIG)
  const configHome =
    process.env.XDG_CONFIG_HOME ||
    (process.platform === "win32" ? (process.env.APPDATA ?? join(homedir(), "AppData", "Roaming")) : undefined) ||
    (process.platform === "darwin" ? join(homedir(), "Library", "Application Support") : join(homedir(), ".config"))
  return join(configHome, "aide", "cli.json")
}

export const defaultUrl = "http://127.0.0.1:4111"

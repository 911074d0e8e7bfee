import { createRequire } from "node:module"
import * as Path from "node:path"

/** The first-party plugins shipped with the server (each its own package; disabled until enabled). */
const firstParty = [
  "@aide/plugin-telegram",
  "@aide/plugin-webhook",
  "@aide/plugin-web-fetch",
  "@aide/plugin-email",
  "@aide/plugin-discord",
  "@aide/plugin-matrix",
  "@aide/plugin-slack",
  "@aide/plugin-whatsapp",
] as const

const require = createRequire(import.meta.url)

/** Their folders, as installed beside the server; a package that is missing is left out. */
export const bundledPluginFolders = (): ReadonlyArray<string> =>
  firstParty.flatMap((name) => {
    try {
      return [Path.dirname(require.resolve(`${name}/package.json`))]
    } catch {
      return []
    }
  })

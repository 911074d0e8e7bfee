import { createRequire } from "node:module"

// Both src/version.ts and the bundled dist/*.js sit one level below the package root.
const packageJson = createRequire(import.meta.url)("../package.json") as { readonly version: string }

/** The server's version, from its package.json. */
export const version: string = packageJson.version

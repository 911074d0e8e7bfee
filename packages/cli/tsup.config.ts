import { fileURLToPath } from "node:url"
import { defineConfig, type Options } from "tsup"

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number]

/**
 * `@aide/client` is bundled from its sources, as the server bundles the kernel: `bin/aide.mjs`
 * then builds one file when the CLI is stale, and never runs a stale client build.
 */
const clientSources: EsbuildPlugin = {
  name: "aide-client-sources",
  setup(build) {
    const sources = fileURLToPath(new URL("../client/src/", import.meta.url))
    build.onResolve({ filter: /^@aide\/client$/ }, () => ({ path: `${sources}index.ts` }))
  },
}

export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  sourcemap: true,
  // No clean: bin/aide.mjs rebuilds in place when stale, and a process may be loading the bundle meanwhile.
  clean: false,
  target: "node20",
  esbuildPlugins: [clientSources],
  // better-sqlite3 is native (backup, restore, doctor): loaded from node_modules, and only by those commands.
  external: ["better-sqlite3"],
})

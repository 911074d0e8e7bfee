import { defineConfig } from "tsup"

/**
 * ESM for Node ≥ 20, browsers and edge runtimes alike: the sources use only `fetch` and web streams.
 * CommonJS too (`index.cjs`, `index.d.cts`), for `require("@aide/client")`.
 */
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  platform: "neutral",
  target: "es2022",
  dts: true,
  clean: true,
  external: ["ai"],
})

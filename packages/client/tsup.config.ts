import { defineConfig } from "tsup"

/** ESM for Node ≥ 20, browsers and edge runtimes alike: the sources use only `fetch` and web streams. */
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  platform: "neutral",
  target: "es2022",
  dts: true,
  clean: true,
  external: ["ai"],
})

import { defineConfig } from "tsup"

/** `AIDE_BUILD=js` (the root `prepare` at install): the JavaScript only, keeping declarations already built. */
const jsOnly = process.env.AIDE_BUILD === "js"

/** ESM, and CommonJS for plugins written with `require` (`index.cjs`, `index.d.cts`). */
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: !jsOnly,
  sourcemap: true,
  clean: !jsOnly,
  target: "node20",
})

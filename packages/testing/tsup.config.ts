import { defineConfig } from "tsup"

/** `AIDE_BUILD=js` (the root `prepare` at install): the JavaScript only, keeping declarations already built. */
const jsOnly = process.env.AIDE_BUILD === "js"

export default defineConfig({
  entry: {
    index: "src/index.ts",
    effect: "src/effect/index.ts",
    contracts: "src/effect/contracts/index.ts",
    fixtures: "src/fixtures/index.ts",
    plugin: "src/plugin/index.ts",
    channels: "src/channels/index.ts",
  },
  format: ["esm"],
  dts: !jsOnly,
  sourcemap: true,
  clean: !jsOnly,
  target: "node20",
  // The kernel and the test runner are the user's own (one Effect runtime, one vitest).
  external: ["@aide/kernel", "@effect/vitest", "vitest"],
})

import { defineConfig } from "tsup"

export default defineConfig({
  entry: {
    index: "src/index.ts",
    effect: "src/effect/index.ts",
    fixtures: "src/fixtures/index.ts",
    plugin: "src/plugin/index.ts",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // The kernel and the test runner are the user's own (one Effect runtime, one vitest).
  external: ["@aide/kernel", "@effect/vitest", "vitest"],
})

import { defineConfig } from "tsup"

/** `AIDE_BUILD=js` (the root `prepare` at install): the JavaScript only, keeping declarations already built. */
const jsOnly = process.env.AIDE_BUILD === "js"

export default defineConfig({
  entry: { index: "src/index.ts", internal: "src/internal.ts", postgres: "src/postgres.ts", redis: "src/redis.ts" },
  format: ["esm"],
  dts: !jsOnly,
  sourcemap: true,
  clean: !jsOnly,
  target: "node20",
})

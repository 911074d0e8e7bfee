import { defineConfig } from "tsup"

export default defineConfig({
  entry: { index: "src/index.ts", postgres: "src/postgres.ts", redis: "src/redis.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
})

import { defineConfig } from "tsup"

export default defineConfig([
  // The library: types and ESM for people who embed the server.
  {
    entry: { index: "src/index.ts" },
    format: ["esm"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
  },
  // The process: one bundle (fast cold start); native modules stay outside. The PostgreSQL
  // driver (pure JS, not a dependency of this package) is bundled into a lazy chunk loaded
  // only when DATABASE_URL is set.
  {
    entry: { main: "src/main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    splitting: true,
    noExternal: [/^(?!better-sqlite3$|argon2$|pg-native$).*/],
    external: ["better-sqlite3", "argon2", "pg-native"],
    banner: {
      js: "import { createRequire as __aideCreateRequire } from 'node:module'; const require = __aideCreateRequire(import.meta.url);",
    },
  },
])

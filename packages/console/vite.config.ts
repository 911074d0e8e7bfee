import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

/**
 * Built to static files the server serves at `/app/` (packages/server/src/http/Console.ts).
 * No React plugin: esbuild compiles the JSX (automatic runtime), which keeps the build a few
 * seconds and its dependencies small. The module preload polyfill is off: it is an inline-free
 * script, but the browsers the console targets have `modulepreload` natively.
 */
export default defineConfig({
  base: "/app/",
  // The client from its sources: no client build is needed first (and never a stale one).
  resolve: { alias: { "@aide/client": fileURLToPath(new URL("../client/src/index.ts", import.meta.url)) } },
  esbuild: { jsx: "automatic" },
  build: {
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: {
      // zod comments and "use client" directives (under ai and @ai-sdk/react) that Rollup drops: noise.
      onwarn: (warning, warn) =>
        ["INVALID_ANNOTATION", "MODULE_LEVEL_DIRECTIVE"].includes(warning.code ?? "") ? undefined : warn(warning),
    },
  },
  server: { proxy: { "/api": "http://127.0.0.1:4111" } },
})

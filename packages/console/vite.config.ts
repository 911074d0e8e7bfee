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
      // zod (under ai) has comments Rollup drops with a warning per file: noise.
      onwarn: (warning, warn) => (warning.code === "INVALID_ANNOTATION" ? undefined : warn(warning)),
    },
  },
  server: { proxy: { "/api": "http://127.0.0.1:4111" } },
})

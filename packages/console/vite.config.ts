import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { defineConfig, type Plugin } from "vite"

/** What is worth compressing: text, over 1 KiB (below that the headers outweigh the gain). */
const compressible = /\.(js|css|html|svg|json|txt|webmanifest)$/
const minBytes = 1024

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? files(path) : [path]
  })

/**
 * Writes `<file>.br` and `<file>.gz` beside each built text file, at the highest levels (done
 * once per build, not per request): the server sends them as `Content-Encoding` allows
 * (packages/server/src/http/Console.ts). node:zlib only: no plugin dependency.
 */
const precompress = (): Plugin => ({
  name: "aide-precompress",
  apply: "build",
  closeBundle() {
    const dist = fileURLToPath(new URL("dist", import.meta.url))
    for (const file of files(dist)) {
      if (!compressible.test(file)) continue
      const body = readFileSync(file)
      if (body.length < minBytes) continue
      writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }))
      writeFileSync(
        `${file}.br`,
        brotliCompressSync(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        }),
      )
    }
  },
})

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
  plugins: [precompress()],
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

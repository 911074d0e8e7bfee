import { readFileSync } from "node:fs"
import { defineConfig, type Options } from "tsup"

/** `AIDE_BUILD=js` (the root `prepare` at install): the JavaScript only, keeping declarations already built. */
const jsOnly = process.env.AIDE_BUILD === "js"

/**
 * One entry per subpath of package.json's `exports` whose files are in dist (`./threads` →
 * src/threads.ts → dist/threads.js), so a subpath is declared once, in the exports map.
 */
export const entries = (): Record<string, string> => {
  const manifest = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
    exports: Record<string, unknown>
  }
  const names = Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    const file = typeof target === "object" && target !== null ? (target as { import?: string }).import : undefined
    return file?.startsWith("./dist/") ? [subpath === "." ? "index" : subpath.slice(2)] : []
  })
  return Object.fromEntries(names.map((name) => [name, `src/${name}.ts`]))
}

const library: Options = {
  entry: entries(),
  format: ["esm"],
  dts: !jsOnly,
  sourcemap: true,
  clean: !jsOnly,
  target: "node20",
}

/**
 * The plugin runner with SES as one CommonJS file, runtime/dist/plugin-runner.cjs: a plugin
 * process reads it (with a V8 code cache, runtime/start.cjs) instead of loading ES modules
 * (docs/plugin-sandbox.md, "Start time"). Its `import.meta.url` is the runtime folder's, so the
 * SDK and the packages it loads lazily resolve as from the sources.
 */
export const runnerBundle: Options = {
  entry: { "plugin-runner": "runtime/bundle-entry.cjs" },
  outDir: "runtime/dist",
  format: ["cjs"],
  platform: "node",
  target: "node20",
  dts: false,
  sourcemap: false,
  clean: true,
  splitting: false,
  // SES, and the input validator (required on a plugin's first tool call: bundle-entry.cjs).
  noExternal: ["ses", "@cfworker/json-schema"],
  define: { "import.meta.url": "__aideRuntimeUrl" },
  banner: {
    js: 'var __aideRuntimeUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "..", "runner.mjs")).href;',
  },
  outExtension: () => ({ js: ".cjs" }),
  esbuildOptions: (options) => {
    // `import()` stays `import()` (esbuild would make it `require()`, which cannot load ES modules).
    options.supported = { ...options.supported, "dynamic-import": true }
  },
}

export default defineConfig([library, runnerBundle])

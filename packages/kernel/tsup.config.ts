import { defineConfig, type Options } from "tsup"

/** `AIDE_BUILD=js` (the root `prepare` at install): the JavaScript only, keeping declarations already built. */
const jsOnly = process.env.AIDE_BUILD === "js"

const library: Options = {
  entry: { index: "src/index.ts", internal: "src/internal.ts", postgres: "src/postgres.ts", redis: "src/redis.ts" },
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
  noExternal: ["ses"],
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

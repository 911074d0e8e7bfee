import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { defineConfig, type Options } from "tsup"

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number]

/**
 * `@effect/platform`'s barrel re-exports HttpApiScalar, which would put its 3.3 MB inline UI in
 * the startup chunk. http/ApiDocs.ts loads it with `import()` on the first `/api/docs` request; dropping
 * the barrel's re-export lets it live in that lazy chunk only. (The build fails loudly if code
 * ever imports `HttpApiScalar` from the barrel.)
 */
const lazyScalar: EsbuildPlugin = {
  name: "aide-lazy-scalar",
  setup(build) {
    build.onLoad({ filter: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8").replace(/^export \* as HttpApiScalar from .*$/m, ""),
      loader: "js",
    }))
  },
}

/**
 * effect's Schema imports all of fast-check (`effect/FastCheck`) for one line: the NonEmptyChunk
 * arbitrary calls `fastCheck_.array`, though the fast-check it is handed (`fc`) is the same
 * module. Using `fc` there drops 2.5 MiB of heap that the server evaluated at every start and
 * never used (issue 38); arbitraries behave the same. (The build fails loudly if effect changes
 * those lines.)
 */
const schemaWithoutFastCheck: EsbuildPlugin = {
  name: "aide-schema-without-fast-check",
  setup(build) {
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/]Schema\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8")
      const contents = source
        .replace(/^import \* as fastCheck_ from "\.\/FastCheck\.js";$/m, "")
        .replace("item => fc => fastCheck_.array(", "item => fc => fc.array(")
      if (contents.includes("fastCheck_"))
        throw new Error(`${args.path}: fastCheck_ is used beyond what this plugin rewrites`)
      return { contents, loader: "js" }
    })
  },
}

/**
 * The process bundle takes the kernel from its sources, not from its `dist`: `pnpm start` then
 * builds one bundle and no type declarations (see `aide start`, packages/cli/src/commands/start.ts), and the bundle never runs
 * a stale kernel build.
 */
const kernelSources: EsbuildPlugin = {
  name: "aide-kernel-sources",
  setup(build) {
    const sources = fileURLToPath(new URL("../kernel/src/", import.meta.url))
    build.onResolve({ filter: /^@aide\/kernel(\/postgres|\/internal)?$/ }, (args) => ({
      path: `${sources}${args.path === "@aide/kernel" ? "index" : args.path.slice("@aide/kernel/".length)}.ts`,
    }))
  },
}

/** `AIDE_BUILD=runtime` (`aide start`): only what running needs, the process bundle. */
const runtimeOnly = process.env.AIDE_BUILD === "runtime"

const library: Options = {
  // The library: types and ESM for people who embed the server.
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
}

const processBundle: Options = {
  // The process: one bundle (fast cold start); native modules stay outside. The PostgreSQL
  // driver (pure JS, not a dependency of this package) is bundled into a lazy chunk loaded
  // only when DATABASE_URL is set.
  entry: { main: "src/main.ts" },
  format: ["esm"],
  sourcemap: true,
  target: "node20",
  splitting: true,
  // Whitespace and syntax only: less to parse at start, readable names in stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  esbuildPlugins: [lazyScalar, schemaWithoutFastCheck, kernelSources],
  // tsup's default is UTF-8. One character beyond Latin-1 in a chunk (a quote in a regular
  // expression) makes V8 hold all of that chunk's source in two bytes per character: 1.5 MiB more
  // heap for main.js alone (issue 38). ASCII output escapes it.
  // Source maps without the sources' text: stack traces map to files and lines all the same, and
  // the package stays well under registries' upload limits (the maps held 20 MB of source text).
  esbuildOptions(options) {
    options.charset = "ascii"
    options.sourcesContent = false
  },
  noExternal: [/^(?!better-sqlite3$|argon2$|pg-native$).*/],
  external: ["better-sqlite3", "argon2", "pg-native"],
  banner: {
    js: "import { createRequire as __aideCreateRequire } from 'node:module'; const require = __aideCreateRequire(import.meta.url);",
  },
}

export default defineConfig(runtimeOnly ? [processBundle] : [library, processBundle])

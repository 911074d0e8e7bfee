// The plugin runner as one CommonJS file: the kernel's build bundles this entry with SES and the
// runner's modules into dist/plugin-runner.cjs (tsup.config.ts). A process started from it skips
// Node's ES module loader, and start.cjs evaluates it with a V8 code cache (docs/plugin-sandbox.md,
// "Start time"). Run as a script (host trust) it starts at once:
//
//   node --max-old-space-size=N dist/plugin-runner.cjs host

const { createRequire } = require("node:module")
const path = require("node:path")
const { pathToFileURL } = require("node:url")
const { setImporter } = require("./importer.mjs")
const { lockdownOptions } = require("./modules.mjs")

/** The runtime folder (the bundle is in its dist/): packages resolve from there, as from the sources. */
const fromRuntime = createRequire(path.join(path.dirname(__dirname), "plugin-runner.mjs"))

/**
 * The runner's modules evaluated (and Node's that they use), then SES locked down, as
 * plugin-runner.mjs does: a process's start before it serves, and what precompile.mjs runs to
 * make the code cache.
 */
const prepare = (trust) => {
  const runner = require("./runner.mjs")
  if (trust === "compartment") {
    require("ses")
    lockdown(lockdownOptions)
  }
  return runner
}

/**
 * Packages the runner loads lazily that are in this bundle: evaluated on first use, from the
 * bundle's text (CommonJS). The input validator comes here on a plugin's first tool call; through
 * `import()` it brought Node's ES module loader with it, ~18 MiB of the process for good
 * (docs/plugin-sandbox.md, "Memory"). The module transformer stays an `import()`: only a plugin
 * without precompiled records needs it.
 */
const bundled = { "@cfworker/json-schema": () => require("@cfworker/json-schema") }

/**
 * `load`: the `import()` of a module Node loaded itself. start.cjs passes its own: in code from a
 * V8 code cache, `import()` fails on Node 20 ("A dynamic import callback was not specified").
 */
const main = (trust, modulesDir, load = (url) => import(url)) => {
  setImporter((specifier) =>
    Object.hasOwn(bundled, specifier)
      ? Promise.resolve().then(bundled[specifier])
      : load(pathToFileURL(fromRuntime.resolve(specifier)).href),
  )
  prepare(trust).run({ trust, modulesDir })
}

module.exports = { prepare, main }

if (require.main === module) main(process.argv[2] === "host" ? "host" : "compartment", process.argv[3])

// A compartment process's entry when the kernel is built: evaluates the bundled runner
// (dist/plugin-runner.cjs, SES included) with the V8 code cache precompile.mjs wrote into the
// plugin's modules folder, then starts it. Without a cache (or with one V8 refuses) it compiles, as
// a process from the ES module sources would (docs/plugin-sandbox.md, "Start time").
//
//   node --experimental-permission --allow-fs-read=… --max-old-space-size=N start.cjs compartment [modulesDir]

const { readFileSync } = require("node:fs")
const path = require("node:path")
const { cacheName, evaluateCached } = require("./code-cache.cjs")

const bundleFile = path.join(__dirname, "dist", "plugin-runner.cjs")

/** The bundle's exports, evaluated with the cache from `cacheDir`; the script makes the cache. */
const loadBundle = (cacheDir) => {
  const text = readFileSync(bundleFile, "utf8")
  const name = cacheName("runner", text)
  const { exports, script } = evaluateCached({ file: bundleFile, text, name, cacheDir, requireFn: require })
  return { exports, script, name }
}

module.exports = { bundleFile, loadBundle }

// The runner's lazy `import()`s (the module transformer, the input validator) go through this
// file's: the bundle's own cannot load anything from a code cache (bundle-entry.cjs).
if (require.main === module) {
  loadBundle(process.argv[3]).exports.main("compartment", process.argv[3], (url) => import(url))
}

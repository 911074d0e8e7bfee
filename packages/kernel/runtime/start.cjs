// A compartment process's entry when the kernel is built: evaluates the bundled runner
// (dist/plugin-runner.cjs, SES included) with the V8 code cache precompile.mjs wrote into the
// plugin's modules folder, then starts it. Without a cache (or with one V8 refuses) it compiles, as
// a process from the ES module sources would (docs/plugin-sandbox.md, "Start time").
//
//   node --experimental-permission --allow-fs-read=… --max-old-space-size=N start.cjs compartment [modulesDir]

const { createHash } = require("node:crypto")
const { readFileSync } = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")

const bundleFile = path.join(__dirname, "dist", "plugin-runner.cjs")

/**
 * The cache's name in a modules folder. V8 checks a cache's Node, V8 flags and source length, not
 * its text: the name holds the first two (`--max-old-space-size`, which a plugin's limits change,
 * and `--verify-snapshot-checksum`) and the text's hash, so a rebuilt bundle or a process with
 * other flags finds none.
 */
const cacheName = (text) => {
  const flags = process.execArgv
    .filter((flag) => /^--(max-old-space-size|verify-snapshot-checksum)/.test(flag))
    .join(" ")
  return `runner-${createHash("sha256").update(`${process.version}\0${flags}\0${text}`).digest("hex").slice(0, 32)}.v8`
}

/** The bundle's exports, evaluated with the cache from `cacheDir`; the script makes the cache. */
const loadBundle = (cacheDir) => {
  const text = readFileSync(bundleFile, "utf8")
  const name = cacheName(text)
  let cachedData
  if (cacheDir !== undefined) {
    try {
      cachedData = readFileSync(path.join(cacheDir, name))
    } catch {
      cachedData = undefined
    }
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`, {
    filename: bundleFile,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const bundle = { exports: {} }
  script.runInThisContext()(bundle.exports, require, bundle, bundleFile, path.dirname(bundleFile))
  return { exports: bundle.exports, script, name }
}

module.exports = { bundleFile, loadBundle }

// The runner's lazy `import()`s (the module transformer, the input validator) go through this
// file's: the bundle's own cannot load anything from a code cache (bundle-entry.cjs).
if (require.main === module) {
  loadBundle(process.argv[3]).exports.main("compartment", process.argv[3], (url) => import(url))
}

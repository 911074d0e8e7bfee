// A CommonJS file evaluated with a V8 code cache from a plugin's modules folder: SES for a process
// from the ES module sources (modules.mjs), the bundled runner for one from the build (start.cjs).
// precompile.mjs writes the caches (docs/plugin-sandbox.md, "Start time").

const { createHash } = require("node:crypto")
const { readFileSync } = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")

/**
 * A cache's file name. V8 accepts a cache only from the same Node, the same V8 flags
 * (`--max-old-space-size` and `--wasm-max-mem-pages`, which a plugin's limits change, and the
 * fixed ones of RunnerPaths.ts's `codeCacheFlags`) and
 * source of the same length, so all three name it (the text by its hash): a process with other
 * flags, or a rebuilt file, finds none and compiles, as without one.
 */
const namedFlags =
  /^--(max-old-space-size|wasm-max-mem-pages|verify-snapshot-checksum|max-semi-space-size|interrupt-budget)/

const cacheName = (prefix, text) => {
  const flags = process.execArgv.filter((flag) => namedFlags.test(flag)).join(" ")
  return `${prefix}-${createHash("sha256").update(`${process.version}\0${flags}\0${text}`).digest("hex").slice(0, 32)}.v8`
}

/**
 * Evaluates `file` (its `text`) as a CommonJS module with the cache `name` from `cacheDir`, when
 * there is one; `requireFn` is the module's `require`. Returns its exports, and its script (whose
 * `createCachedData` makes the cache).
 */
const evaluateCached = ({ file, text, name, cacheDir, requireFn }) => {
  let cachedData
  if (cacheDir !== undefined) {
    try {
      cachedData = readFileSync(path.join(cacheDir, name))
    } catch {
      cachedData = undefined
    }
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const module = { exports: {} }
  script.runInThisContext()(module.exports, requireFn, module, file, path.dirname(file))
  return { exports: module.exports, script }
}

module.exports = { cacheName, evaluateCached }

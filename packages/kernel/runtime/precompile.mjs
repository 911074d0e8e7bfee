// Compiles a sandboxed plugin's modules ahead of its process (see modules.mjs): started by the
// host when the plugin is enabled, in a process of its own (Babel's parse never runs on the
// server's event loop), under the permission model (reads the plugin folder, writes only the
// cache folder) and bounded in time and memory by the host.
//
//   node precompile.mjs '{"directory":…,"entries":["tools.js"],"cacheDir":…,"bundled":true}'
//
// Prints one JSON line: { modules, compiled, failed }. Modules already in the cache are read,
// not compiled; records of this plugin no longer used are removed. Also writes the V8 code cache
// of the plugin process's first script (`bundled`: the bundled runner, start.cjs; else SES).

import { promises as fs } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  compile,
  limits,
  loadSes,
  lockdownOptions,
  moduleFile,
  readRecord,
  recordKey,
  recordPath,
  resolveSpecifier,
} from "./modules.mjs"

const request = JSON.parse(process.argv[2] ?? "{}")
const root = await fs.realpath(request.directory)
const cacheDir = request.cacheDir
await fs.mkdir(cacheDir, { recursive: true })

let ModuleSource
const compiler = async () => {
  ModuleSource ??= (await import("@endo/module-source")).ModuleSource
  return ModuleSource
}

const used = new Set()
const seen = new Set()
const summary = { modules: 0, compiled: 0, failed: 0 }

/** Compiles `url` if its record is missing, then what it imports. Errors stay with the importer. */
const visit = async (url) => {
  if (seen.has(url)) return
  seen.add(url)
  if (seen.size > limits.modules) throw new Error(`more than ${limits.modules} modules`)
  let file
  try {
    file = await moduleFile(root, url)
  } catch {
    return // the runner reports a missing or refused module when it is imported
  }
  const fileUrl = pathToFileURL(file).href
  const text = await fs.readFile(file, "utf8")
  const key = recordKey(fileUrl, text)
  used.add(`${key}.json`)
  summary.modules++
  let record = await readRecord(cacheDir, key)
  if (record === undefined) {
    record = compile(await compiler(), fileUrl, text)
    const temporary = `${recordPath(cacheDir, key)}.${process.pid}.tmp`
    await fs.writeFile(temporary, JSON.stringify(record))
    await fs.rename(temporary, recordPath(cacheDir, key))
    summary.compiled++
  }
  if (record.error !== undefined) {
    summary.failed++
    return
  }
  for (const specifier of record.imports ?? []) {
    let next
    try {
      next = resolveSpecifier(specifier, fileUrl)
    } catch {
      continue // refused at run time, with the reason
    }
    await visit(next)
  }
}

for (const entry of request.entries ?? []) await visit(pathToFileURL(path.resolve(root, entry)).href)

function bundledRunner(dir) {
  const { exports, script, name } = createRequire(import.meta.url)("./start.cjs").loadBundle(dir)
  return { script, name, lockdown: () => exports.prepare("compartment") }
}

function sesScript(dir) {
  const { script, name } = loadSes(dir)
  return { script, name, lockdown: () => lockdown(lockdownOptions) }
}

// The V8 code cache of the plugin process's first script, for a process started with the same
// --max-old-space-size: the bundled runner when the host starts it (start.cjs), else SES
// (plugin-runner.mjs, loadSes). Made after a lockdown so that the functions lockdown runs are in
// it. Nothing is compiled after this.
const first = request.bundled === true ? bundledRunner(cacheDir) : sesScript(cacheDir)
used.add(first.name)
if (!(await fs.stat(path.join(cacheDir, first.name)).catch(() => false))) {
  first.lockdown()
  await fs.writeFile(path.join(cacheDir, `${first.name}.${process.pid}.tmp`), first.script.createCachedData())
  await fs.rename(path.join(cacheDir, `${first.name}.${process.pid}.tmp`), path.join(cacheDir, first.name))
}

// The folder is this plugin's alone: what this run did not use belongs to older versions.
for (const name of await fs.readdir(cacheDir)) {
  if (/\.(json|v8)$/.test(name) && !used.has(name)) await fs.rm(path.join(cacheDir, name), { force: true })
}

process.stdout.write(`${JSON.stringify(summary)}\n`)

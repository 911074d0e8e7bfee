// Compiles a sandboxed plugin's modules ahead of its process (see modules.mjs): started by the
// host when the plugin is enabled, in a process of its own (Babel's parse never runs on the
// server's event loop), under the permission model (reads the plugin folder, writes only the
// cache folder) and bounded in time and memory by the host.
//
//   node precompile.mjs '{"directory":…,"entries":["tools.js"],"cacheDir":…}'
//
// Prints one JSON line: { modules, compiled, failed }. Modules already in the cache are read,
// not compiled; records of this plugin no longer used are removed. Also writes SES's V8 code
// cache for the plugin process (modules.mjs, loadSes).

import { promises as fs } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  compile,
  limits,
  loadSes,
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

// SES's V8 code cache for the plugin process (started with the same --max-old-space-size), made
// after a lockdown so that the functions lockdown runs are in it. Nothing is compiled after this.
const ses = loadSes(cacheDir)
used.add(ses.name)
if (!(await fs.stat(path.join(cacheDir, ses.name)).catch(() => false))) {
  lockdown({ overrideTaming: "severe", errorTaming: "unsafe", consoleTaming: "unsafe", stackFiltering: "concise" })
  await fs.writeFile(path.join(cacheDir, `${ses.name}.${process.pid}.tmp`), ses.script.createCachedData())
  await fs.rename(path.join(cacheDir, `${ses.name}.${process.pid}.tmp`), path.join(cacheDir, ses.name))
}

// The folder is this plugin's alone: what this run did not use belongs to older versions.
for (const name of await fs.readdir(cacheDir)) {
  if (/\.(json|v8)$/.test(name) && !used.has(name)) await fs.rm(path.join(cacheDir, name), { force: true })
}

process.stdout.write(`${JSON.stringify(summary)}\n`)

// A module-resolution hook (`node --import`) that appends every URL Node resolves to the file
// AIDE_LOAD_RECORD names: what an import really loaded, for test/entry-points.test.ts. The test
// runner's modules resolve to a no-op stub: a contract suite imported outside vitest must load.
import { appendFileSync } from "node:fs"
import { register } from "node:module"

if (process.env.AIDE_LOAD_RECORDING === undefined) {
  process.env.AIDE_LOAD_RECORDING = "1"
  register(import.meta.url, { data: process.env.AIDE_LOAD_RECORD })
}

const noop = "const noop = new Proxy(() => noop, { get: () => noop });"
const stub = `data:text/javascript,${encodeURIComponent(`${noop} export const describe = noop, it = noop, expect = noop, layer = noop;`)}`

let record
export const initialize = (file) => {
  record = file
}
export const resolve = async (specifier, context, next) => {
  if (specifier === "vitest" || specifier === "@effect/vitest") return { url: stub, shortCircuit: true }
  const resolved = await next(specifier, context)
  if (record !== undefined) appendFileSync(record, `${resolved.url}\n`)
  return resolved
}

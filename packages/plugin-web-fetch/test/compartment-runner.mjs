// Runs fetch_page the way Aide's compartment runner does, in its own process (lockdown is
// process-wide): SES lockdown, then the plugin's code in a Compartment whose only globals are
// the endowments Aide grants a tool with `permissions.network` (and neither `time` nor `random`).
// Approximation: Aide evaluates the entry as a module; here the two source files are joined
// into one script (their import/export lines removed), which runs the same code.
// Usage: node compartment-runner.mjs <loopback origin> <url>; prints the result or the error as JSON.
import { readFileSync } from "node:fs"
import "ses"

const [origin, url] = process.argv.slice(2)
const read = (name) => readFileSync(new URL(`../src/${name}`, import.meta.url), "utf8")
const source = [
  read("html.js").replace(/^export /gm, ""),
  read("tools.js")
    .replace(/^import .*$/gm, "")
    .replace(/^export default /m, "return ")
    .replace(/^export /gm, ""),
].join("\n")

// The brokered fetch, as far as the tool can tell: any https URL is served by the loopback server.
const hostFetch = fetch
const brokered = (input, init) => {
  const target = new URL(String(input))
  return hostFetch(`${origin}${target.pathname}${target.search}`, init)
}

lockdown({ errorTaming: "unsafe" })
const compartment = new Compartment({
  globals: harden({
    fetch: brokered,
    Response,
    Headers,
    Request,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    AbortController,
    AbortSignal,
    console,
  }),
  __options__: true,
})
const [tool] = compartment.evaluate(`(() => {\n${source}\n})()`)
const probe = compartment.evaluate(
  "({ process: typeof process, require: typeof require, Buffer: typeof Buffer, clock: (() => { try { Date.now(); return 'ticks' } catch { return 'none' } })() })",
)
const context = { env: {}, config: {}, fetch: brokered, signal: new AbortController().signal, log: () => {} }
tool
  .execute({ url }, context)
  .then((result) => console.log(JSON.stringify({ ok: true, result, probe })))
  .catch((error) => console.log(JSON.stringify({ ok: false, error: String(error?.message ?? error), probe })))

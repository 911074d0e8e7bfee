#!/usr/bin/env node
// Aide plugin sandbox benchmark, against the built kernel (packages/kernel/dist): what one tool
// call through a plugin process (PluginProcess.callTool: IPC to a child, SES compartment or
// host trust) costs over calling the same tool in-process, both through Effect.runPromise; the
// plugin processes' start time and RSS.
//
//   npx -y pnpm@10.20.0 -r build && node bench/plugin-call.mjs
//
// Knobs: PLUGIN_CALLS [2000] measured calls per side.  PLUGIN_WARMUP [200].
// Prints a markdown table; writes bench/results/plugin-call-<timestamp>.json. ~10 s.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { importFrom, log, median, percentile, root, round, rssMiB, table, writeResults } from "./harness.mjs"

const { PluginProcess } = await import(pathToFileURL(path.join(root, "packages/kernel/dist/index.js")).href)
const { Effect, Exit, Scope } = await importFrom("kernel", "effect")

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = { calls: int("PLUGIN_CALLS", 2000), warmup: int("PLUGIN_WARMUP", 200) }
const directory = path.join(root, "packages/kernel/test/plugins/fixtures/basic")
const input = { text: "hello" }

/** Milliseconds of each of `settings.calls` sequential runs of `once`, after a warm-up. */
const sample = async (once) => {
  for (let i = 0; i < settings.warmup; i++) await once()
  const times = []
  for (let i = 0; i < settings.calls; i++) {
    const started = performance.now()
    await once()
    times.push(performance.now() - started)
  }
  return times
}

const summary = (name, times, extra = {}) => ({
  name,
  p50: round(median(times), 3),
  p90: round(percentile(times, 90), 3),
  p99: round(percentile(times, 99), 3),
  ...extra,
})

const tools = (await import(pathToFileURL(path.join(directory, "tools.mjs")).href)).default
const echo = tools.find((tool) => tool.id === "echo")
const context = { env: {}, config: {}, signal: new AbortController().signal, log: () => {} }
const inProcess = summary(
  "in-process function",
  await sample(() => Effect.runPromise(Effect.promise(async () => echo.execute(input, context)))),
)

const viaProcess = async (trust) => {
  const scope = Effect.runSync(Scope.make())
  const started = performance.now()
  const plugin = await Effect.runPromise(
    PluginProcess.start({
      pluginId: "basic",
      directory,
      trust,
      entries: { tools: ["tools.mjs"], agents: [], channels: [] },
      permissions: {},
      env: {},
      config: {},
    }).pipe(Scope.extend(scope)),
  )
  const startMs = performance.now() - started
  try {
    const times = await sample(() => Effect.runPromise(plugin.callTool("echo", input)))
    const pid = await Effect.runPromise(plugin.pid)
    return summary(`PluginProcess (${trust})`, times, { startMs: round(startMs, 0), rssMiB: round(rssMiB(pid), 1) })
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

log(`${settings.calls} calls per side after ${settings.warmup} warm-up calls`)
const rows = [inProcess, await viaProcess("compartment"), await viaProcess("host")]
for (const row of rows.slice(1)) row.addedP50 = round(row.p50 - inProcess.p50, 3)

console.log(
  table(
    ["", "p50 ms", "p90 ms", "p99 ms", "added p50 ms", "start ms", "child RSS MiB"],
    rows.map((row) => [row.name, row.p50, row.p90, row.p99, row.addedP50 ?? "", row.startMs ?? "", row.rssMiB ?? ""]),
  ),
)
log(`results: ${writeResults("plugin-call", { settings, node: process.version, rows })}`)

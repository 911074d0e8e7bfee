#!/usr/bin/env node
// Aide plugin sandbox benchmark, against the built kernel (packages/kernel/dist): what one tool
// call through a plugin process (PluginProcess.callTool: IPC to a child, SES compartment or
// host trust) costs over calling the same tool in-process, both through Effect.runPromise; the
// plugin processes' start time and RSS, and (A/B, alternating) a compartment process's start
// with its modules precompiled (PluginPrecompile, as the loader does when a plugin is enabled)
// against one that compiles them itself (loads Babel), and an empty `node -e 0` in the same
// rounds (the floor the RSS is read against: "RSS − node -e 0"); each started process then
// answers one tool call and its RSS is read again ("RSS after a call": the input validator loads).
//
//   npx -y pnpm@10.20.0 -r build && node bench/plugin-call.mjs
//
// Knobs: PLUGIN_CALLS [2000] measured calls per side.  PLUGIN_WARMUP [200].  PLUGIN_STARTS [7]
// A/B rounds of process starts.  PLUGIN_BASELINE: another built kernel package folder (say an
// older commit's, `git archive` + `tsup`): its precompiled compartment start joins the rounds, so
// a change to the start is measured before/after in one run.
// Prints a markdown table; writes bench/results/plugin-call-<timestamp>.json. ~10 s.

import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  cpuMs,
  importFrom,
  log,
  median,
  percentile,
  removeDir,
  root,
  round,
  rssMiB,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"

// Internal modules since the kernel's public surface was narrowed (issue 22).
const { PluginPrecompile, PluginProcess } = await import(
  pathToFileURL(path.join(root, "packages/kernel/dist/internal.js")).href
)
const { Effect, Exit, Scope } = await importFrom("kernel", "effect")
const baseline =
  process.env.PLUGIN_BASELINE === undefined
    ? undefined
    : await import(pathToFileURL(path.join(path.resolve(process.env.PLUGIN_BASELINE), "dist/internal.js")).href)

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = {
  calls: int("PLUGIN_CALLS", 2000),
  warmup: int("PLUGIN_WARMUP", 200),
  starts: int("PLUGIN_STARTS", 7),
}
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
    const pid = nodePid(await Effect.runPromise(plugin.pid))
    return summary(`PluginProcess (${trust})`, times, { startMs: round(startMs, 0), rssMiB: round(rssMiB(pid), 1) })
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * The node process itself: the pid a plugin reports is the first program of its wrapper chain
 * (`setpriv` / `prlimit` exec into the next, but `unshare --fork` stays as the parent), so
 * follow the first child until the process is node. Reading the wrapper measured ~1.5 MiB.
 */
const nodePid = (pid) => {
  for (let depth = 0; depth < 4; depth++) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "node") return pid
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")
      if (children[0] === "") return pid
      pid = Number(children[0])
    } catch {
      return pid
    }
  }
  return pid
}

/** Memory the process alone holds (its private pages: RSS less what it shares, Node's code). */
const privateMiB = (pid) => {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8")
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN)
    return (kb("Private_Clean") + kb("Private_Dirty")) / 1024
  } catch {
    return Number.NaN
  }
}

/** One plugin process started (until its `init` answered) and stopped: ms, RSS, private MiB. */
const startOnce = async (modules, trust = "compartment", kernel = { PluginProcess }) => {
  const scope = Effect.runSync(Scope.make())
  const started = performance.now()
  const plugin = await Effect.runPromise(
    kernel.PluginProcess.start({
      pluginId: "basic",
      directory,
      trust,
      entries: { tools: ["tools.mjs"], agents: [], channels: [] },
      permissions: {},
      env: {},
      config: {},
      ...(modules === undefined ? {} : { modules }),
    }).pipe(Scope.extend(scope)),
  )
  const ms = performance.now() - started
  const pid = nodePid(await Effect.runPromise(plugin.pid))
  const rss = rssMiB(pid)
  const own = privateMiB(pid)
  const cpu = cpuMs(pid)
  // Then one tool call: what the process holds once it serves (the input validator loads on it).
  await Effect.runPromise(plugin.callTool("echo", input))
  const called = rssMiB(pid)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return { ms, rss, own, cpu, called }
}

/**
 * An empty `node -e 0`, read at its end: the script stops itself (SIGSTOP, no module loaded for
 * it) and its RSS is read while it is stopped, as a plugin process's is read once `init` answered.
 */
const emptyNode = async () => {
  const child = spawn(process.execPath, ["-e", "0;process.kill(process.pid,'SIGSTOP')"], { stdio: "ignore" })
  const exited = new Promise((resolve) => child.once("exit", resolve))
  const stopped = () => {
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8")
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "T"
    } catch {
      return false
    }
  }
  while (!stopped()) await new Promise((resolve) => setTimeout(resolve, 2))
  const result = {
    ms: Number.NaN,
    rss: rssMiB(child.pid),
    own: privateMiB(child.pid),
    cpu: cpuMs(child.pid),
    called: Number.NaN,
  }
  child.kill("SIGKILL")
  await exited
  return result
}

const startAB = async () => {
  const cacheDir = path.join(tmpDir("aide-bench-modules-"), "basic")
  const baselineDir = path.join(path.dirname(cacheDir), "baseline")
  const compile =
    (label, kernel = { PluginPrecompile }, into = cacheDir) =>
    async () => {
      const started = performance.now()
      const summary = await Effect.runPromise(
        kernel.PluginPrecompile.precompile({ directory, entries: ["tools.mjs"], cacheDir: into }),
      )
      return { label, ms: performance.now() - started, ...summary }
    }
  const precompiles = [await compile("precompile, cold")(), await compile("precompile, cached")()]
  if (baseline !== undefined) precompiles.push(await compile("precompile (baseline), cold", baseline, baselineDir)())
  const sides = { babel: [], precompiled: [], baseline: [], host: [], empty: [] }
  for (let round = 0; round < settings.starts; round++) {
    // Alternating, so both sides see the same machine.
    sides.babel.push(await startOnce(undefined))
    sides.precompiled.push(await startOnce(cacheDir))
    if (baseline !== undefined) sides.baseline.push(await startOnce(baselineDir, "compartment", baseline))
    sides.host.push(await startOnce(undefined, "host"))
    sides.empty.push(await emptyNode())
  }
  removeDir(path.dirname(cacheDir))
  const emptyRss = median(sides.empty.map((run) => run.rss))
  const row = (name, runs) => ({
    name,
    startMs: round(median(runs.map((run) => run.ms)), 0),
    cpuMs: round(median(runs.map((run) => run.cpu)), 0),
    rssMiB: round(median(runs.map((run) => run.rss)), 1),
    overEmptyMiB: round(median(runs.map((run) => run.rss)) - emptyRss, 1),
    privateMiB: round(median(runs.map((run) => run.own)), 1),
    calledRssMiB: round(median(runs.map((run) => run.called)), 1),
  })
  return {
    precompiles,
    rows: [
      row("compartment, compiles itself (Babel)", sides.babel),
      row("compartment, precompiled", sides.precompiled),
      ...(baseline === undefined ? [] : [row("compartment, precompiled (PLUGIN_BASELINE)", sides.baseline)]),
      row("host trust (no SES: the Node floor)", sides.host),
      row("`node -e 0`", sides.empty),
    ],
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
log(`process start, A/B: ${settings.starts} alternating rounds`)
const starts = await startAB()
console.log(
  table(
    [
      "process start (median)",
      "start ms",
      "child CPU ms",
      "child RSS MiB",
      "RSS − `node -e 0` MiB",
      "child private MiB",
      "RSS after a call MiB",
    ],
    starts.rows.map((row) => [
      row.name,
      Number.isNaN(row.startMs) ? "" : row.startMs,
      row.cpuMs,
      row.rssMiB,
      row.overEmptyMiB,
      row.privateMiB,
      Number.isNaN(row.calledRssMiB) ? "" : row.calledRssMiB,
    ]),
  ),
)
for (const compile of starts.precompiles) {
  log(`${compile.label}: ${round(compile.ms, 0)} ms (${compile.modules} modules, ${compile.compiled} compiled)`)
}
log(`results: ${writeResults("plugin-call", { settings, node: process.version, rows, starts })}`)

// What an oversize plugin message costs the host (issue 20, finding 7): the host's peak RSS
// growth and its longest event-loop stall while one hostile call fails. A/B: each run is a fresh
// process against a kernel build (`packages/kernel` of a worktree, built), alternating.
//
//   node bench/plugin-wire.mjs <kernelA> <kernelB> [runs=3]
//
// Scenarios: `error60` a compartment tool throws an Error whose message is an object whose slice()
// answers 60 MB; `raw60` a host-trust tool writes a 60 MB message on the wire itself (Node IPC or
// fd 3, whichever the build has); `fetch150` a compartment tool with the network grant posts a
// 150 MB body (the broker's network is stubbed: nothing leaves the machine).

import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { pathToFileURL } from "node:url"

const tools = {
  error60: `export default [{ id: "t", name: "t", description: "t", parameters: { type: "object" }, execute: () => {
    const error = new Error("x"); error.message = { slice: () => "y".repeat(60 * 1024 * 1024) }; throw error } }]`,
  raw60: `import { writeSync } from "node:fs"
export default [{ id: "t", name: "t", description: "t", parameters: { type: "object" }, execute: () => {
  const message = { kind: "log", level: "info", message: "y".repeat(60 * 1024 * 1024) }
  if (typeof process.send === "function") process.send(message)
  else { const body = Buffer.from(JSON.stringify(message)); const header = Buffer.alloc(4); header.writeUInt32BE(body.length); writeSync(3, header); writeSync(3, body) }
  return new Promise(() => {}) } }]`,
  fetch150: `export default [{ id: "t", name: "t", description: "t", parameters: { type: "object" }, execute: async (input, context) =>
    (await context.fetch("https://public.example.com/in", { method: "POST", body: "x".repeat(150 * 1024 * 1024) })).status }]`,
}

const one = async (kernelDir, scenario) => {
  const require = createRequire(join(kernelDir, "package.json"))
  const { Effect, Scope, Exit } = await import(pathToFileURL(require.resolve("effect")).href)
  const { PluginProcess } = await import(pathToFileURL(join(kernelDir, "dist/index.js")).href)
  const directory = mkdtempSync(join(tmpdir(), "aide-bench-wire-"))
  mkdirSync(directory, { recursive: true })
  writeFileSync(join(directory, "tools.mjs"), tools[scenario])
  const scope = Effect.runSync(Scope.make())
  const plugin = await Effect.runPromise(
    PluginProcess.start({
      pluginId: "bench",
      directory,
      trust: scenario === "raw60" ? "host" : "compartment",
      entries: { tools: ["tools.mjs"], agents: [], channels: [] },
      permissions: scenario === "fetch150" ? { network: ["public.example.com"] } : {},
      env: {},
      config: {},
      limits: { memoryMb: 1024, callTimeoutMs: 60_000 },
      egress: { lookup: async () => ["93.184.216.34"], send: async () => new Response("ok", { status: 201 }) },
    }).pipe(Scope.extend(scope)),
  )
  global.gc?.()
  const before = process.resourceUsage().maxRSS
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const started = performance.now()
  const outcome = await Effect.runPromise(Effect.either(plugin.callTool("t", {})))
  const elapsed = performance.now() - started
  delay.disable()
  const peak = process.resourceUsage().maxRSS
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const text = outcome._tag === "Left" ? outcome.left.message : JSON.stringify(outcome.right)
  return {
    // maxRSS is the process's peak in KiB: its growth over the call is what the call cost at most.
    peakGrowthMiB: Math.round((peak - before) / 1024),
    stallMs: Math.round(delay.max / 1e6),
    callMs: Math.round(elapsed),
    outcome: text.slice(0, 120),
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

if (process.argv[2] === "--one") {
  console.log(JSON.stringify(await one(resolve(process.argv[3]), process.argv[4])))
} else {
  const [a, b] = [resolve(process.argv[2]), resolve(process.argv[3])]
  const runs = Number(process.argv[4] ?? 3)
  const results = {}
  for (const scenario of Object.keys(tools)) {
    for (let run = 0; run < runs; run++) {
      for (const [label, dir] of run % 2 === 0
        ? [
            ["A", a],
            ["B", b],
          ]
        : [
            ["B", b],
            ["A", a],
          ]) {
        const out = execFileSync(process.execPath, ["--expose-gc", import.meta.filename, "--one", dir, scenario], {
          encoding: "utf8",
          maxBuffer: 1 << 20,
        })
        const result = JSON.parse(out.trim().split("\n").at(-1))
        const key = `${scenario} ${label}`
        results[key] = [...(results[key] ?? []), result]
      }
    }
  }
  console.log("| scenario | build | peak RSS growth MiB (median) | longest stall ms (median) | outcome |")
  console.log("|---|---|---|---|---|")
  for (const [key, list] of Object.entries(results)) {
    const [scenario, label] = key.split(" ")
    console.log(
      `| ${scenario} | ${label} | ${median(list.map((r) => r.peakGrowthMiB))} (${list.map((r) => r.peakGrowthMiB).join(", ")}) | ${median(list.map((r) => r.stallMs))} (${list.map((r) => r.stallMs).join(", ")}) | ${list[0].outcome} |`,
    )
  }
}

// What a flood of brokered fetches costs the server (issue 32, item 4): a compartment plugin with
// the network grant fires fetches the broker refuses (an undeclared address), either one after
// another (`loop`, each awaited: FETCHES of them or for LOOP_MS, whichever ends first) or FETCHES
// all at once (`burst`), or in waves of WAVE at once, each awaited (`waves`, like `loop`). Measured in this, the host, process:
// CPU time (process.cpuUsage) and the longest event-loop stall (monitorEventLoopDelay) over the
// call, wall time, and how the fetches ended. Nothing leaves the machine (the broker's network
// is stubbed and the target is refused before any connection).
//
//   npx tsx bench/plugin-fetch-flood.ts    # env FETCHES [20000], LOOP_MS [6000], WAVE [1000], ROUNDS [2], MODES [loop,burst]
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
// @ts-expect-error the kernel's own copy (the root installs no effect)
import { Effect, Exit, Scope } from "../packages/kernel/node_modules/effect/dist/esm/index.js"
import * as PluginProcess from "../packages/kernel/src/plugins/sandbox/PluginProcess.js"

const fetches = Number(process.env.FETCHES ?? 20_000)
const loopMs = Number(process.env.LOOP_MS ?? 6_000)
const wave = Number(process.env.WAVE ?? 1_000)
const rounds = Number(process.env.ROUNDS ?? 2)
const modes = (process.env.MODES ?? "loop,waves,burst").split(",")

const tools = `
const count = (reasons) => { const out = { total: reasons.length }; for (const r of reasons) { const k = r.replace(/[0-9]+/g, "N"); out[k] = (out[k] ?? 0) + 1 } return out }
export default [
  { id: "loop", name: "loop", description: "loop", parameters: { type: "object" }, execute: async (input, context) => {
    const reasons = []
    const until = Date.now() + input.ms
    for (let i = 0; i < input.n && Date.now() < until; i++) {
      try { await context.fetch("https://10.0.0.1/x"); reasons.push("ok") } catch (error) { reasons.push(error.message) }
    }
    return count(reasons)
  } },
  { id: "waves", name: "waves", description: "waves", parameters: { type: "object" }, execute: async (input, context) => {
    const reasons = []
    const until = Date.now() + input.ms
    while (reasons.length < input.n && Date.now() < until) {
      const settled = await Promise.allSettled(Array.from({ length: input.wave }, () => context.fetch("https://10.0.0.1/x")))
      for (const one of settled) reasons.push(one.status === "fulfilled" ? "ok" : one.reason.message)
    }
    return count(reasons)
  } },
  { id: "burst", name: "burst", description: "burst", parameters: { type: "object" }, execute: async (input, context) => {
    const settled = await Promise.allSettled(Array.from({ length: input.n }, () => context.fetch("https://10.0.0.1/x")))
    return count(settled.map((one) => (one.status === "fulfilled" ? "ok" : one.reason.message)))
  } },
]
`

const directory = mkdtempSync(join(tmpdir(), "aide-bench-flood-"))
writeFileSync(join(directory, "tools.mjs"), tools)
const scope = Effect.runSync(Scope.make())
const plugin = await Effect.runPromise(
  PluginProcess.start({
    pluginId: "flood",
    directory,
    trust: "compartment",
    entries: { tools: ["tools.mjs"], agents: [], channels: [] },
    permissions: { network: ["public.example.com"], time: true },
    env: {},
    config: {},
    limits: { callTimeoutMs: 600_000, watchdog: null },
    egress: { lookup: async () => ["93.184.216.34"], send: async () => new Response("ok") },
  }).pipe(Scope.extend(scope)),
)

const root = createServer((_, response) => response.end("ok"))
await new Promise<void>((resolve) => root.listen(0, "127.0.0.1", resolve))
const rootUrl = `http://127.0.0.1:${(root.address() as AddressInfo).port}/`
/** `GET /` every 20 ms until `stop()`: each answer's time in ms. */
const probe = () => {
  const times: Array<number> = []
  let running = true
  const done = (async () => {
    while (running) {
      const sent = performance.now()
      await (await fetch(rootUrl)).text()
      times.push(performance.now() - sent)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  return async () => {
    running = false
    await done
    const sorted = times.sort((a, b) => a - b)
    return { probeMaxMs: Math.round(sorted.at(-1) ?? 0), probeMedianMs: Math.round(sorted[sorted.length >> 1] ?? 0) }
  }
}

for (const mode of modes) {
  for (let round = 0; round < rounds; round++) {
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const cpu = process.cpuUsage()
    const started = performance.now()
    const stopProbe = process.env.PROBE ? probe() : undefined
    const outcome = await Effect.runPromise(Effect.either(plugin.callTool(mode, { n: fetches, ms: loopMs, wave })))
    const wallMs = Math.round(performance.now() - started)
    const used = process.cpuUsage(cpu)
    delay.disable()
    const probed = (await stopProbe?.()) ?? {}
    console.log(
      JSON.stringify({
        mode,
        hostCpuMs: Math.round((used.user + used.system) / 1000),
        wallMs,
        stallMs: Math.round(delay.max / 1e6),
        ...probed,
        outcome: outcome._tag === "Right" ? outcome.right : outcome.left.message,
      }),
    )
  }
}
await Effect.runPromise(Scope.close(scope, Exit.void))
root.close()

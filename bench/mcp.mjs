#!/usr/bin/env node
// MCP registry benchmark, against the kernel's TypeScript sources (no build needed):
//   1. start-up: time from building McpRegistry.layer with N stdio servers configured until all
//      of them are connected with their tools listed, N = 1 and N = 10 (in parallel), median
//      of BENCH_MCP_RUNS runs;
//   2. tool call: p50/p95 of one `echo` call through the registry's ToolDefinition vs the same
//      call on a bare SDK client to the same kind of server (the difference is our overhead).
//
//   node --import tsx bench/mcp.mjs
//
// The servers are packages/testing/src/fixtures/mcp-stdio-server.mjs (the MCP SDK over stdio),
// each a node child process. Loopback only, every wait bounded.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as AppConfig from "../packages/kernel/src/config/AppConfig.ts"
import * as McpOAuth from "../packages/kernel/src/mcp/McpOAuth.ts"
import * as McpRegistry from "../packages/kernel/src/mcp/McpRegistry.ts"
import * as ModelRegistry from "../packages/kernel/src/models/ModelRegistry.ts"
import * as ToolRegistry from "../packages/kernel/src/tools/ToolRegistry.ts"
import { log, median, percentile, root, round, table, writeResults } from "./harness.mjs"

// effect and the MCP SDK are the kernel's dependencies, not the root's: load the kernel's copies
// (the same files its sources import, so one Effect runtime).
const kernelModule = (file) => import(pathToFileURL(path.join(root, "packages/kernel/node_modules", file)).href)
const { Context, Effect, Exit, Layer, Scope } = await kernelModule("effect/dist/esm/index.js")
const { Client } = await kernelModule("@modelcontextprotocol/sdk/dist/esm/client/index.js")
const { StdioClientTransport } = await kernelModule("@modelcontextprotocol/sdk/dist/esm/client/stdio.js")

const fixture = path.join(root, "packages/testing/src/fixtures/mcp-stdio-server.mjs")
const runs = Number(process.env.BENCH_MCP_RUNS) > 0 ? Number(process.env.BENCH_MCP_RUNS) : 5
const calls = Number(process.env.BENCH_MCP_CALLS) > 0 ? Number(process.env.BENCH_MCP_CALLS) : 300
const server = () => ({ command: process.execPath, args: [fixture] })

/** Builds the registry over a config holding `count` servers; resolves once all are connected. */
const startRegistry = async (count) => {
  const scope = Effect.runSync(Scope.make())
  const base = await Effect.runPromise(
    Layer.buildWithScope(
      Layer.mergeAll(
        AppConfig.layerMemory.pipe(Layer.provide(ModelRegistry.layer({ env: {} }))),
        ToolRegistry.layer,
        McpOAuth.layerDisabled(),
      ),
      scope,
    ),
  )
  const config = Context.get(base, AppConfig.AppConfig)
  await Effect.runPromise(
    config.patch({ mcpServers: Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, server()])) }),
  )
  const started = performance.now()
  const services = await Effect.runPromise(
    Layer.buildWithScope(McpRegistry.layer({ connectTimeout: "30 seconds" }), scope).pipe(Effect.provide(base)),
  )
  const registry = Context.get(services, McpRegistry.McpRegistry)
  const deadline = Date.now() + 60_000
  while (true) {
    const list = await Effect.runPromise(registry.list)
    const failed = list.find((s) => s.error !== null)
    if (failed) throw new Error(`${failed.id}: ${failed.error}`)
    if (list.every((s) => s.tools.length > 0)) break
    if (Date.now() > deadline) throw new Error("servers did not connect within 60 s")
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  const elapsed = performance.now() - started
  return {
    elapsed,
    tools: Context.get(base, ToolRegistry.ToolRegistry),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

const connectTimes = {}
for (const count of [1, 10]) {
  const samples = []
  for (let run = 0; run < runs; run++) {
    const started = await startRegistry(count)
    samples.push(started.elapsed)
    await started.close()
  }
  connectTimes[count] = samples
  log(`${count} server(s): ${samples.map((s) => round(s, 1)).join(", ")} ms`)
}

const timeCalls = async (call) => {
  for (let i = 0; i < 50; i++) await call() // warm-up
  const samples = []
  for (let i = 0; i < calls; i++) {
    const started = performance.now()
    await call()
    samples.push(performance.now() - started)
  }
  return samples
}

const viaRegistry = await startRegistry(1)
const source = (await Effect.runPromise(viaRegistry.tools.sources)).find((s) => s.id === "s0")
const echo = (await Effect.runPromise(source.tools)).find((t) => t.name === "echo")
const context = { threadId: "t", runId: "r", toolCallId: "c" }
const registrySamples = await timeCalls(() => Effect.runPromise(echo.execute({ text: "hi" }, context)))
await viaRegistry.close()

const bare = new Client({ name: "bench", version: "0" })
await bare.connect(new StdioClientTransport({ ...server(), stderr: "ignore" }))
const bareSamples = await timeCalls(() => bare.callTool({ name: "echo", arguments: { text: "hi" } }))
await bare.close()

const rows = [
  ["connect 1 stdio server", `${round(median(connectTimes[1]), 1)} ms`],
  ["connect 10 stdio servers (parallel)", `${round(median(connectTimes[10]), 1)} ms`],
  [
    "echo via ToolRegistry, p50 / p95",
    `${round(percentile(registrySamples, 50))} / ${round(percentile(registrySamples, 95))} ms`,
  ],
  [
    "echo via bare SDK client, p50 / p95",
    `${round(percentile(bareSamples, 50))} / ${round(percentile(bareSamples, 95))} ms`,
  ],
  ["registry overhead per call (p50)", `${round(percentile(registrySamples, 50) - percentile(bareSamples, 50))} ms`],
]
console.log(table(["measure", `median of ${runs} runs / ${calls} calls`], rows))
const file = writeResults("mcp", { runs, calls, connectTimes, registrySamples, bareSamples, node: process.version })
log(`results in ${file}`)

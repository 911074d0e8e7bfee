#!/usr/bin/env node
// Tool-call round trip through a stdio MCP server, against the bundled server
// (packages/server/dist/main.js) and the FakeModelServer of @aide/testing, all on 127.0.0.1:
// the model asks for `bench_echo` → the server calls the MCP server → the model continues.
//
// What Aide adds per tool call = median(chat with one tool call) − median(plain chat)
//   − median(one extra model request, measured directly) − median(one MCP call on a bare SDK client).
// That is split into the AI SDK's own cost of a tool step (streamText with the same script in this
// process, two steps vs one) and the rest: Aide's own code.
// Each sample is a new thread; the thread's background title request is waited out.
//
//   npx -y pnpm@10.20.0 build && node bench/tools.mjs
//
// Knobs: BENCH_TOOL_SAMPLES [60] per side; BENCH_TOOL [bench_echo] (current_time: a built-in, no MCP);
//   BENCH_NODE_ARGS extra node flags for the server (e.g. --cpu-prof).  Writes bench/results/tools-<timestamp>.json. ~30 s.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  log,
  median,
  percentile,
  removeDir,
  request,
  root,
  round,
  setUp,
  sleep,
  sse,
  startServer,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"

const kernelModule = (file) => import(pathToFileURL(path.join(root, "packages/kernel/node_modules", file)).href)
const { Client } = await kernelModule("@modelcontextprotocol/sdk/dist/esm/client/index.js")
const { StdioClientTransport } = await kernelModule("@modelcontextprotocol/sdk/dist/esm/client/stdio.js")
const { FakeModelServer } = await import(pathToFileURL(path.join(root, "packages/testing/dist/index.js")).href)

const fixture = path.join(root, "packages/testing/src/fixtures/mcp-stdio-server.mjs")
const samples = Number(process.env.BENCH_TOOL_SAMPLES) > 0 ? Number(process.env.BENCH_TOOL_SAMPLES) : 60
const warmup = 5
const deadline = Date.now() + 120_000

const fake = await FakeModelServer.start()
const dataDir = tmpDir("aide-bench-tools-")
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")
const server = await startServer({ dataDir, nodeArgs, env: { OPENAI_COMPATIBLE_BASE_URL: fake.url } })
const results = { samples, node: process.version, date: new Date().toISOString() }

try {
  const token = await setUp(server.url)
  const patched = await request(server.url, {
    method: "PATCH",
    path: "/api/config",
    token,
    body: {
      models: { operator: { provider: "openai-compatible", model: "fake-model" } },
      mcpServers: { bench: { command: process.execPath, args: [fixture], requireApproval: false } },
    },
  })
  if (patched.status !== 200) throw new Error(`config: ${patched.status} ${JSON.stringify(patched.body)}`)
  while (true) {
    const { body } = await request(server.url, { path: "/api/mcp-servers", token })
    if (body.servers[0]?.tools.length > 0) break
    if (body.servers[0]?.error) throw new Error(body.servers[0].error)
    if (Date.now() > deadline) throw new Error("the MCP server did not connect")
    await sleep(20)
  }

  /** One chat to `[DONE]`; `turns` are scripted first; waits out the title request. */
  const chatOnce = async (turns) => {
    fake.reset()
    fake.script(...turns)
    let done = Number.NaN
    let toolOutputs = 0
    const started = performance.now()
    const response = await sse(`${server.url}/api/chat`, {
      headers: { authorization: `Bearer ${token}` },
      body: { parts: [{ type: "text", text: "Echo something" }] },
      onEvent: (data, now) => {
        if (data === "[DONE]") done = now
        else if (JSON.parse(data).type === "tool-output-available") toolOutputs++
      },
    })
    if (response.status !== 200) throw new Error(`chat: ${response.status}`)
    const until = performance.now() + 3000
    while (fake.requests.length < turns.length + 1 && performance.now() < until) await sleep(1)
    return { ms: done - started, toolOutputs }
  }

  // BENCH_TOOL=current_time compares with a built-in tool (no MCP round trip).
  const toolName = process.env.BENCH_TOOL ?? "bench_echo"
  const toolTurns = [
    { toolCalls: [{ name: toolName, arguments: toolName === "bench_echo" ? { text: "ping" } : {} }] },
    { text: "Done." },
  ]
  const plainTurns = [{ text: "Done." }]
  const withTool = []
  const plain = []
  for (let i = 0; i < warmup + samples; i++) {
    if (Date.now() > deadline) throw new Error("time budget exceeded")
    const tool = await chatOnce(toolTurns)
    if (tool.toolOutputs !== 1) throw new Error("the tool did not run")
    const base = await chatOnce(plainTurns)
    if (i >= warmup) {
      withTool.push(tool.ms)
      plain.push(base.ms)
    }
  }

  // One model request with a tool result, straight to the fake model (what the second step costs there).
  const directModel = []
  fake.reset()
  for (let i = 0; i < warmup + samples; i++) {
    const started = performance.now()
    let done = Number.NaN
    await sse(`${fake.url}/chat/completions`, {
      headers: {},
      body: { model: "fake-model", stream: true, messages: [{ role: "user", content: "Echo something" }] },
      onEvent: (data, now) => {
        if (data === "[DONE]") done = now
      },
    })
    if (i >= warmup) directModel.push(done - started)
  }

  // The AI SDK alone, in this process: the same two-step exchange (tool call, then text) with a
  // tool that returns at once, vs a one-step answer; the difference is the SDK's own cost of a step.
  const ai = await kernelModule("ai/dist/index.mjs")
  const { createOpenAICompatible } = await kernelModule("@ai-sdk/openai-compatible/dist/index.mjs")
  const model = createOpenAICompatible({ name: "fake", baseURL: fake.url, includeUsage: true })("fake-model")
  const sdkTools = {
    [toolName]: ai.dynamicTool({
      description: "echo",
      inputSchema: ai.jsonSchema({ type: "object" }),
      execute: async () => "ping",
    }),
  }
  const sdkOnce = async (turns) => {
    fake.reset()
    fake.script(...turns)
    const started = performance.now()
    const stream = ai
      .streamText({ model, prompt: "Echo something", tools: sdkTools, stopWhen: ai.stepCountIs(10) })
      .toUIMessageStream()
    for await (const _chunk of stream) {
    }
    return performance.now() - started
  }
  const sdkWithTool = []
  const sdkPlain = []
  for (let i = 0; i < warmup + samples; i++) {
    const tool = await sdkOnce(toolTurns)
    const base = await sdkOnce(plainTurns)
    if (i >= warmup) {
      sdkWithTool.push(tool)
      sdkPlain.push(base)
    }
  }

  // One MCP call on a bare SDK client to the same server.
  const client = new Client({ name: "bench", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: "ignore" }))
  const directMcp = []
  for (let i = 0; i < warmup + samples; i++) {
    const started = performance.now()
    await client.callTool({ name: "echo", arguments: { text: "ping" } })
    if (i >= warmup) directMcp.push(performance.now() - started)
  }
  await client.close()

  const added = median(withTool) - median(plain) - median(directModel) - median(directMcp)
  results.ms = {
    chatWithToolP50: round(median(withTool)),
    chatWithToolP95: round(percentile(withTool, 95)),
    plainChatP50: round(median(plain)),
    modelRequestP50: round(median(directModel)),
    mcpCallP50: round(median(directMcp)),
    addedPerToolCallP50: round(added),
    aiSdkToolStepP50: round(median(sdkWithTool) - median(sdkPlain)),
    aideOwnPerToolCallP50: round(added - (median(sdkWithTool) - median(sdkPlain) - median(directModel))),
  }
  console.log(
    table(
      ["measure", "p50 ms"],
      [
        ["chat with one MCP tool call (to [DONE])", results.ms.chatWithToolP50],
        ["plain chat (to [DONE])", results.ms.plainChatP50],
        ["one model request, direct", results.ms.modelRequestP50],
        ["one MCP call, bare SDK client", results.ms.mcpCallP50],
        ["**added by Aide per tool call**", `**${results.ms.addedPerToolCallP50}** (target < 5)`],
        [
          "of which the AI SDK's own tool step (streamText alone, 2 steps − 1 step − model request)",
          round(median(sdkWithTool) - median(sdkPlain) - median(directModel)),
        ],
        ["of which Aide's own code (relay, persistence, tool wrapper)", results.ms.aideOwnPerToolCallP50],
      ],
    ),
  )
  log(`results: ${writeResults("tools", results)}`)
} finally {
  await server.stop()
  await fake.close()
  removeDir(dataDir)
}

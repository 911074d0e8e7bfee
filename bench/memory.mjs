#!/usr/bin/env node
// Aide memory benchmark, against the bundled server (packages/server/dist/main.js) and the
// FakeModelServer of @aide/testing (streaming instantly), both on 127.0.0.1, SQLite storage:
//   1. what memory adds to the first token: chats in one thread with ~40 earlier messages,
//      alternately with memory off (`memory.enabled: false`) and on (working memory of ~1 KB,
//      an observation log, observed messages left out of the request), same server, same run;
//   2. memory's model tokens per 100 chat turns at the default thresholds (30,000 / 40,000),
//      turns of about 450 tokens (a 100-word question, a 250-word answer), read from the
//      server's own ledger (`memory_usage`, the tokens the provider reported).
//
//   npx -y pnpm@10.20.0 build && node bench/memory.mjs
//
// Knobs: MEMORY_SAMPLES [60] chats per side in 1.  MEMORY_TURNS [100] turns in 2.
// Prints a markdown table; writes bench/results/memory-<timestamp>.json. ~1 minute.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  importFrom,
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

const { FakeModelServer } = await import(pathToFileURL(path.join(root, "packages/testing/dist/index.js")).href)
const Database = (await importFrom("kernel", "better-sqlite3")).default

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = { samples: int("MEMORY_SAMPLES", 60), turns: int("MEMORY_TURNS", 100), warmup: 6 }
const words = (count, word) => Array.from({ length: count }, (_, n) => `${word}${n % 50}`).join(" ")
const isMemoryCall = (request) => /memory (observer|reflector)/.test(JSON.stringify(request.body?.messages?.[0] ?? ""))

/** A server with its own data directory and fake model; `run(ctx)` then stop and clean up. */
const withServer = async (run) => {
  const fake = await FakeModelServer.start()
  const dataDir = tmpDir("aide-bench-memory-")
  const server = await startServer({ dataDir, env: { OPENAI_COMPATIBLE_BASE_URL: fake.url } })
  try {
    const token = await setUp(server.url)
    return await run({ fake, server, token, dataDir })
  } finally {
    await server.stop()
    await fake.close()
    removeDir(dataDir)
  }
}

const patch = async (ctx, body) => {
  const answer = await request(ctx.server.url, { method: "PATCH", path: "/api/config", token: ctx.token, body })
  if (answer.status !== 200) throw new Error(`PATCH /api/config: ${answer.status} ${JSON.stringify(answer.body)}`)
}

/** POST /api/chat; the time to the first text-delta from the start of the request. */
const chatOnce = async (ctx, text, threadId) => {
  let first = Number.NaN
  let thread = threadId
  const started = performance.now()
  const response = await sse(`${ctx.server.url}/api/chat`, {
    headers: { authorization: `Bearer ${ctx.token}` },
    body: { parts: [{ type: "text", text }], ...(threadId ? { threadId } : {}) },
    onEvent: (data, now) => {
      if (data === "[DONE]") return
      const chunk = JSON.parse(data)
      if (chunk.type === "text-delta" && Number.isNaN(first)) first = now
      if (chunk.type === "start" && chunk.messageMetadata?.threadId) thread = chunk.messageMetadata.threadId
    },
  })
  if (response.status !== 200) throw new Error(`chat: ${response.status}`)
  return { ttft: first - started, threadId: thread ?? response.headers["x-thread-id"] }
}

/** Waits (bounded) until memory's background calls are over. */
const settle = async (ctx) => {
  for (let i = 0; i < 500; i++) {
    const { body } = await request(ctx.server.url, { path: "/api/memory/record", token: ctx.token })
    if (body.record === null || (!body.record.isObserving && !body.record.isReflecting)) return body
    await sleep(10)
  }
  throw new Error("memory did not settle")
}

const firstTokenCost = () =>
  withServer(async (ctx) => {
    // A thread of 20 turns, observed (threshold 500 tokens), and ~1 KB of working memory.
    await patch(ctx, { memory: { observationalMemory: { messageTokens: 500 } } })
    await request(ctx.server.url, {
      method: "PUT",
      path: "/api/memory/working",
      token: ctx.token,
      body: { content: `# About the owner\n${words(150, "fact")}` },
    })
    let threadId
    for (let turn = 0; turn < 20; turn++) threadId = (await chatOnce(ctx, words(40, `t${turn}w`), threadId)).threadId
    const record = (await settle(ctx)).record
    log(`history observed: ${record.totalTokensObserved} tokens, log ${record.observationTokenCount} tokens`)
    const off = []
    const on = []
    for (let sample = 0; sample < settings.warmup + settings.samples; sample++) {
      for (const enabled of sample % 2 === 0 ? [false, true] : [true, false]) {
        await patch(ctx, { memory: { enabled } })
        const { ttft } = await chatOnce(ctx, "What do you remember?", threadId)
        if (sample >= settings.warmup) (enabled ? on : off).push(ttft)
        await settle(ctx)
      }
    }
    const memoryRequests = ctx.fake.requests.filter((request) => !isMemoryCall(request))
    const last = memoryRequests.at(-1)?.body.messages ?? []
    return {
      offP50: median(off),
      onP50: median(on),
      offP90: percentile(off, 90),
      onP90: percentile(on, 90),
      addedP50: median(on) - median(off),
      lastRequestMessages: last.length,
    }
  })

const tokensPer100Turns = () =>
  withServer(async (ctx) => {
    ctx.fake.script(...Array.from({ length: settings.turns * 2 }, () => ({ text: words(250, "answer") })))
    let threadId
    for (let turn = 0; turn < settings.turns; turn++) {
      threadId = (await chatOnce(ctx, words(100, `q${turn}w`), threadId)).threadId
    }
    const record = (await settle(ctx)).record
    await ctx.server.stop()
    const db = new Database(path.join(ctx.dataDir, "aide.db"), { readonly: true })
    const spent = db.prepare("SELECT COALESCE(SUM(tokens), 0) AS tokens FROM memory_usage").get().tokens
    db.close()
    return {
      turns: settings.turns,
      conversationTokens: record.totalTokensObserved + record.pendingMessageTokens,
      memoryCalls: ctx.fake.requests.filter(isMemoryCall).length,
      memoryTokens: spent,
      memoryTokensPer100Turns: Math.round((spent * 100) / settings.turns),
    }
  })

const first = await firstTokenCost()
log("first token:", first)
const tokens = await tokensPer100Turns()
log("tokens:", tokens)
console.log(
  table(
    ["measure", "value", "target"],
    [
      ["first token, memory off, p50 / p90", `${round(first.offP50)} / ${round(first.offP90)} ms`, ""],
      ["first token, memory on, p50 / p90", `${round(first.onP50)} / ${round(first.onP90)} ms`, ""],
      ["added by memory, p50", `${round(first.addedP50)} ms`, "< 3 ms"],
      [`memory model calls in ${tokens.turns} turns`, String(tokens.memoryCalls), ""],
      ["memory model tokens per 100 turns", String(tokens.memoryTokensPer100Turns), "report"],
      ["conversation tokens in those turns", String(tokens.conversationTokens), ""],
    ],
  ),
)
log(`results: ${writeResults("memory", { settings, first, tokens, node: process.version })}`)

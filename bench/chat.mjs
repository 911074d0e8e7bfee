#!/usr/bin/env node
// Aide chat-path benchmark, against the bundled server (packages/server/dist/main.js) and the
// FakeModelServer of @aide/testing streaming instantly, both on 127.0.0.1:
//   1. server overhead on time-to-first-token and total time: raw fetch of the fake model with
//      the AI SDK's own request body vs POST /api/chat through the server (sequential chats);
//   2. text-delta chunks/s relayed for one 5,000-chunk answer;
//   3. N concurrent chat streams (default 500, different threads, each 10 chunks 1.5 s apart so
//      that all of them are open at once): errors, wall time, server RSS idle/peak/after, memory
//      per stream.
// "First token" is the first text-delta event (server) or the first delta with content (model);
// "total" ends at `data: [DONE]`. Each server chat starts a new thread, whose background title
// call to the model is waited out before the next sample.
//
//   npx -y pnpm@10.20.0 build && node bench/chat.mjs
//
// Knobs: CHAT_SEQUENTIAL [100] chats per side in 1.  CHAT_CHUNKS [5000]  CHAT_CONCURRENT [500]
//        CHAT_CONCURRENT_CHUNKS [10]  CHAT_CONCURRENT_DELAY_MS [1500]  BENCH_SERVER (another main.js)
// Prints a markdown table; writes bench/results/chat-<timestamp>.json. ~1 minute.

import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import {
  cpuMs,
  log,
  median,
  percentile,
  removeDir,
  root,
  round,
  rssMiB,
  setUp,
  sleep,
  sse,
  startServer,
  table,
  tmpDir,
  watchPeakRss,
  writeResults,
} from "./harness.mjs"

const { FakeModelServer } = await import(pathToFileURL(path.join(root, "packages/testing/dist/index.js")).href)

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = {
  sequential: int("CHAT_SEQUENTIAL", 100),
  warmup: 10,
  chunks: int("CHAT_CHUNKS", 5000),
  chunkRuns: 3,
  concurrent: int("CHAT_CONCURRENT", 500),
  concurrentChunks: int("CHAT_CONCURRENT_CHUNKS", 10),
  concurrentDelayMs: int("CHAT_CONCURRENT_DELAY_MS", 1500),
}
const deadline = Date.now() + 170_000
const checkTime = (what) => {
  if (Date.now() > deadline) throw new Error(`time budget exceeded during ${what}`)
}

const isStreamRequest = (request) => request.body?.stream === true

const fake = await FakeModelServer.start()
const dataDir = tmpDir("aide-bench-chat-")
const server = await startServer({ dataDir, env: { OPENAI_COMPATIBLE_BASE_URL: fake.url } }).catch(async (error) => {
  await fake.close()
  removeDir(dataDir)
  throw error
})
const results = { settings, node: process.version, date: new Date().toISOString(), loadavg: os.loadavg() }

/** Waits (bounded) until the fake model has received `count` requests, e.g. a background title call. */
const waitForRequests = async (count, ms = 3000) => {
  const until = performance.now() + ms
  while (fake.requests.length < count && performance.now() < until) await sleep(2)
}

try {
  const token = await setUp(server.url)
  const auth = { authorization: `Bearer ${token}` }
  log(`server ${server.url} (pid ${server.pid}), fake model ${fake.url}`)

  /** POST /api/chat; times the first text-delta and `[DONE]` from the start of the request. */
  const chatOnce = async ({ text = "Hello there, how are you?", threadId } = {}) => {
    let first = Number.NaN
    let done = Number.NaN
    let deltas = 0
    let firstDelta = Number.NaN
    let lastDelta = Number.NaN
    let errors = 0
    let thread
    const started = performance.now()
    const response = await sse(`${server.url}/api/chat`, {
      headers: auth,
      body: { parts: [{ type: "text", text }], ...(threadId ? { threadId } : {}) },
      onEvent: (data, now) => {
        if (data === "[DONE]") {
          done = now
          return
        }
        const chunk = JSON.parse(data)
        if (chunk.type === "text-delta") {
          deltas++
          if (Number.isNaN(first)) {
            first = now
            firstDelta = now
          }
          lastDelta = now
        } else if (chunk.type === "error") errors++
        else if (chunk.type === "start" && chunk.messageMetadata?.threadId) thread = chunk.messageMetadata.threadId
      },
    })
    return {
      status: response.status,
      body: response.text,
      threadId: thread ?? response.headers["x-thread-id"],
      ttft: first - started,
      total: done - started,
      deltas,
      errors,
      relayMs: lastDelta - firstDelta,
    }
  }

  /** The fake model directly, with the request body the AI SDK sent it through the server. */
  let directBody
  const directOnce = async (body = directBody) => {
    let first = Number.NaN
    let done = Number.NaN
    let deltas = 0
    let firstDelta = Number.NaN
    let lastDelta = Number.NaN
    const started = performance.now()
    const response = await sse(`${fake.url}/chat/completions`, {
      headers: { accept: "*/*" },
      body,
      onEvent: (data, now) => {
        if (data === "[DONE]") {
          done = now
          return
        }
        const content = JSON.parse(data).choices?.[0]?.delta?.content
        if (typeof content === "string" && content !== "") {
          deltas++
          if (Number.isNaN(first)) {
            first = now
            firstDelta = now
          }
          lastDelta = now
        }
      },
    })
    return {
      status: response.status,
      ttft: first - started,
      total: done - started,
      deltas,
      relayMs: lastDelta - firstDelta,
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 1. Overhead, sequential chats. Each server chat starts a new thread (the common first message);
  //    the background title call it triggers is waited out before the next sample.
  log("1. overhead: warm-up")
  const first = await chatOnce()
  if (first.status !== 200) throw new Error(`chat failed: ${first.status} ${first.body}`)
  await waitForRequests(2)
  directBody = structuredClone(fake.requests.find(isStreamRequest).body)
  log(`AI SDK request body: ${JSON.stringify(directBody).slice(0, 300)}`)
  for (let i = 0; i < settings.warmup; i++) {
    await directOnce()
    const before = fake.requests.length
    await chatOnce()
    await waitForRequests(before + 2)
  }

  log(`1. overhead: ${settings.sequential} chats per side, interleaved`)
  const direct = []
  const viaServer = []
  let serverCpu = 0
  let failures = 0
  for (let i = 0; i < settings.sequential; i++) {
    checkTime("overhead")
    direct.push(await directOnce())
    const before = fake.requests.length
    const cpuBefore = cpuMs(server.pid)
    const sample = await chatOnce()
    if (sample.status !== 200 || sample.errors > 0 || Number.isNaN(sample.total)) failures++
    viaServer.push(sample)
    await waitForRequests(before + 2)
    await sleep(5)
    serverCpu += cpuMs(server.pid) - cpuBefore
  }
  // The same, continuing one thread: the history the server reads and sends grows by 2 per chat.
  const sameThread = []
  const sameThreadCount = Math.min(50, settings.sequential)
  let threadId
  for (let i = 0; i < sameThreadCount; i++) {
    checkTime("overhead (same thread)")
    const sample = await chatOnce({ threadId })
    threadId ??= sample.threadId
    if (sample.status !== 200 || sample.errors > 0 || Number.isNaN(sample.total)) failures++
    sameThread.push(sample)
    await sleep(5)
  }
  const stats = (samples, key) => ({
    p50: median(samples.map((s) => s[key])),
    p90: percentile(
      samples.map((s) => s[key]),
      90,
    ),
  })
  results.overhead = {
    direct: { ttft: stats(direct, "ttft"), total: stats(direct, "total") },
    server: { ttft: stats(viaServer, "ttft"), total: stats(viaServer, "total") },
    serverSameThread: { ttft: stats(sameThread, "ttft"), total: stats(sameThread, "total") },
    serverCpuMsPerChat: serverCpu / settings.sequential,
    failures,
    samples: settings.sequential,
    sameThreadSamples: sameThreadCount,
  }
  const o = results.overhead
  o.added = {
    ttft: { p50: o.server.ttft.p50 - o.direct.ttft.p50, p90: o.server.ttft.p90 - o.direct.ttft.p90 },
    total: { p50: o.server.total.p50 - o.direct.total.p50, p90: o.server.total.p90 - o.direct.total.p90 },
  }
  o.addedSameThread = {
    ttft: {
      p50: o.serverSameThread.ttft.p50 - o.direct.ttft.p50,
      p90: o.serverSameThread.ttft.p90 - o.direct.ttft.p90,
    },
    total: {
      p50: o.serverSameThread.total.p50 - o.direct.total.p50,
      p90: o.serverSameThread.total.p90 - o.direct.total.p90,
    },
  }
  log(`added p50: first token ${o.added.ttft.p50.toFixed(2)} ms, total ${o.added.total.p50.toFixed(2)} ms`)

  // ---------------------------------------------------------------------------------------------
  // 2. Chunks/s relayed for one long answer.
  log(`2. relay: ${settings.chunks}-chunk answer × ${settings.chunkRuns}`)
  const longText = Array.from({ length: settings.chunks }, (_, i) => `t${i} `)
  const relay = { direct: [], server: [] }
  for (let run = 0; run < settings.chunkRuns; run++) {
    checkTime("relay")
    fake.script({ text: longText, match: isStreamRequest })
    const d = await directOnce({ ...directBody })
    relay.direct.push({ deltas: d.deltas, ms: d.total, relayMs: d.relayMs, perSecond: (d.deltas * 1000) / d.total })
    const before = fake.requests.length
    fake.script({ text: longText, match: isStreamRequest })
    const s = await chatOnce({ text: "Write a very long answer." })
    await waitForRequests(before + 2)
    relay.server.push({
      deltas: s.deltas,
      ms: s.total,
      relayMs: s.relayMs,
      perSecond: (s.deltas * 1000) / s.total,
      status: s.status,
      errors: s.errors,
    })
  }
  results.relay = {
    chunks: settings.chunks,
    serverPerSecond: median(relay.server.map((r) => r.perSecond)),
    directPerSecond: median(relay.direct.map((r) => r.perSecond)),
    serverMs: median(relay.server.map((r) => r.ms)),
    directMs: median(relay.direct.map((r) => r.ms)),
    deltasReceived: relay.server.map((r) => r.deltas),
    runs: relay,
  }
  log(
    `relay: ${Math.round(results.relay.serverPerSecond)} chunks/s (fake alone ${Math.round(results.relay.directPerSecond)})`,
  )

  // ---------------------------------------------------------------------------------------------
  // 3. Concurrent streams on different threads.
  const n = settings.concurrent
  log(`3. concurrency: ${n} streams of ${settings.concurrentChunks} chunks, ${settings.concurrentDelayMs} ms apart`)
  await sleep(1500)
  const idle = rssMiB(server.pid)
  const shortText = Array.from({ length: settings.concurrentChunks }, (_, i) => `w${i} `)
  const turns = Array.from({ length: n }, () => ({
    text: shortText,
    chunkDelayMs: settings.concurrentDelayMs,
    match: isStreamRequest,
  }))
  fake.script(...turns)
  const requestsBefore = fake.requests.length
  const peak = watchPeakRss(server.pid, 10)
  const cpuBefore = cpuMs(server.pid)
  let open = 0
  let maxOpen = 0
  const started = performance.now()
  const outcomes = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      let opened = false
      let deltas = 0
      let errorEvents = 0
      let done = false
      try {
        const response = await sse(`${server.url}/api/chat`, {
          headers: auth,
          timeout: 60_000,
          body: { parts: [{ type: "text", text: `Concurrent chat number ${i}` }] },
          onEvent: (data) => {
            if (!opened) {
              opened = true
              open++
              if (open > maxOpen) maxOpen = open
            }
            if (data === "[DONE]") {
              done = true
              return
            }
            const chunk = JSON.parse(data)
            if (chunk.type === "text-delta") deltas++
            else if (chunk.type === "error") errorEvents++
          },
        })
        if (opened) open--
        const ok = response.status === 200 && done && errorEvents === 0 && deltas === settings.concurrentChunks
        return { ok, status: response.status, deltas, errorEvents, done, body: response.text.slice(0, 200) }
      } catch (error) {
        if (opened) open--
        return { ok: false, error: String(error) }
      }
    }),
  )
  const wallMs = performance.now() - started
  const cpuUsed = cpuMs(server.pid) - cpuBefore
  // Background title calls (one per new thread) are part of the load; wait them out (bounded).
  await waitForRequests(requestsBefore + 2 * n, 20_000)
  const peakRss = peak.stop()
  await sleep(2000)
  const after = rssMiB(server.pid)
  const failed = outcomes.filter((o) => !o.ok)
  results.concurrency = {
    streams: n,
    errors: failed.length,
    errorSamples: failed.slice(0, 5),
    wallMs,
    maxOpenStreams: maxOpen,
    serverCpuMs: cpuUsed,
    rss: { idle, peak: peakRss, after },
    perStreamKiB: ((peakRss - idle) * 1024) / n,
    perOpenStreamKiB: ((peakRss - idle) * 1024) / Math.max(1, maxOpen),
  }
  log(
    `concurrency: ${failed.length} errors, ${Math.round(wallMs)} ms, RSS ${idle.toFixed(1)} → ${peakRss.toFixed(1)} → ${after.toFixed(1)} MiB`,
  )
} finally {
  const exit = await server.stop()
  results.serverExit = exit
  if (/"logLevel":"(ERROR|FATAL)"/.test(server.logs()))
    results.serverErrorLogs = server.logs().match(/.*"logLevel":"(ERROR|FATAL)".*/g)
  await fake.close()
  removeDir(dataDir)
}

// -------------------------------------------------------------------------------------------------
const ms = (v) => `${round(v, 2)} ms`
const o = results.overhead
const r = results.relay
const c = results.concurrency
const rows = [
  ["first token, fake model direct (p50 / p90)", `${ms(o.direct.ttft.p50)} / ${ms(o.direct.ttft.p90)}`, ""],
  [
    "first token, via POST /api/chat, new thread (p50 / p90)",
    `${ms(o.server.ttft.p50)} / ${ms(o.server.ttft.p90)}`,
    "",
  ],
  [
    "**added to first token (p50 / p90)**",
    `**${ms(o.added.ttft.p50)}** / ${ms(o.added.ttft.p90)}`,
    "< 10 ms (stretch 5)",
  ],
  ["total, fake model direct (p50 / p90)", `${ms(o.direct.total.p50)} / ${ms(o.direct.total.p90)}`, ""],
  ["total, via POST /api/chat, new thread (p50 / p90)", `${ms(o.server.total.p50)} / ${ms(o.server.total.p90)}`, ""],
  ["**added to total (p50 / p90)**", `**${ms(o.added.total.p50)}** / ${ms(o.added.total.p90)}`, "< 10 ms (stretch 5)"],
  [
    `added, continuing one thread (≤ ${2 * o.sameThreadSamples} msgs): first token / total p50`,
    `${ms(o.addedSameThread.ttft.p50)} / ${ms(o.addedSameThread.total.p50)}`,
    "",
  ],
  ["server CPU per chat turn (incl. title call)", ms(o.serverCpuMsPerChat), ""],
  [
    `relay, one ${r.chunks}-chunk answer (median of 3)`,
    `**${Math.round(r.serverPerSecond).toLocaleString("en")} chunks/s** (${Math.round(r.serverMs)} ms; fake alone ${Math.round(r.directPerSecond).toLocaleString("en")}/s)`,
    "",
  ],
  [
    `${c.streams} concurrent streams (${settings.concurrentChunks} chunks, ${settings.concurrentDelayMs} ms apart)`,
    `**${c.errors} errors**, wall ${Math.round(c.wallMs)} ms, ${c.maxOpenStreams} open at once at most`,
    "0 errors",
  ],
  [
    "server RSS idle → peak → 2 s after",
    `${round(c.rss.idle, 1)} → ${round(c.rss.peak, 1)} → ${round(c.rss.after, 1)} MiB`,
    "",
  ],
  ["memory per stream ((peak − idle) / streams)", `**${round(c.perStreamKiB, 0)} KiB**`, ""],
]
console.log(
  `\nChat path (${o.samples} sequential chats per side; fake model on loopback, no delay; node ${process.version}, ${
    os.cpus().length
  } cores, load average ${results.loadavg[0].toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end)\n`,
)
console.log(table(["measure", "value", "target"], rows))
if (o.failures > 0) console.log(`\n${o.failures} sequential chats failed`)
console.log(`\nresults: ${writeResults("chat", results)}`)
process.exit(0)

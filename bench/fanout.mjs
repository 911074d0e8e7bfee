#!/usr/bin/env node
// SSE resume fan-out (issue 9, item 8): N clients reconnected (`GET /api/chat/:id/stream`) to
// one running chat whose model streams ~10 tokens/s. Measures, on the server process:
//   - join latency: time from connect to the response's status line, per subscriber (p50/p99/max);
//   - CPU % over a window with the N subscribers idle-reading, against the same window with none;
//   - RSS before, with the N subscribers, and after they all left (per subscriber = delta / N);
//   - `GET /` latency (p50/p99) sampled every 50 ms during the window;
//   - the caps: one subscriber over the per-stream cap gets 429 (FANOUT_CHECK_CAP=1).
//
//   node --import tsx bench/fanout.mjs            # server from the sources (no build needed)
//   BENCH_SERVER=packages/server/dist/main.js node --import tsx bench/fanout.mjs
//
// Knobs: FANOUT_SUBSCRIBERS [2000]  FANOUT_TOKEN_MS [100]  FANOUT_WINDOW_S [10]
//        FANOUT_BATCH [100] subscribers connecting at once  FANOUT_WARMUP_S [20] of stream before
//        joining (replayed to each joiner)  BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p")
// Prints a markdown table; writes bench/results/fanout-<timestamp>.json. Loopback only.

import { existsSync, readFileSync, rmSync } from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import {
  log,
  percentile,
  removeDir,
  request,
  root,
  round,
  rssMiB,
  setUp,
  sleep,
  startServer,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const settings = {
  subscribers: int("FANOUT_SUBSCRIBERS", 2000),
  tokenMs: int("FANOUT_TOKEN_MS", 100),
  windowS: int("FANOUT_WINDOW_S", 10),
  batch: int("FANOUT_BATCH", 100),
  warmupS: int("FANOUT_WARMUP_S", 20),
  checkCap: process.env.FANOUT_CHECK_CAP !== "0",
}

const { FakeModelServer } = await import("../packages/testing/src/index.ts")
const fromSources = process.env.BENCH_SERVER === undefined
const main = fromSources ? path.join(root, "packages/server/src/main.ts") : path.resolve(process.env.BENCH_SERVER)
// Memory is sampled after a full GC (SIGUSR2 triggers one in the server, which then writes its
// process.memoryUsage() to FANOUT_MEM_FILE): without it, per-subscriber figures are mostly garbage
// not collected yet. The JS heap in use is the steadier figure: V8 keeps freed pages, so RSS
// falls late (or not at all) after subscribers leave.
const memFile = path.join(os.tmpdir(), `aide-fanout-mem-${process.pid}.json`)
const gcOnSignal = `data:text/javascript,import{writeFileSync}from"node:fs";process.on("SIGUSR2",()=>{globalThis.gc();writeFileSync(process.env.FANOUT_MEM_FILE,JSON.stringify(process.memoryUsage()))})`
const nodeArgs = [
  "--expose-gc",
  "--import",
  gcOnSignal,
  ...(fromSources ? ["--import", "tsx"] : []),
  ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
]

const fake = await FakeModelServer.start()
// The chat: one word every FANOUT_TOKEN_MS, for ever (until stopped). Other calls (the title) get
// the default turn.
fake.script({ text: ["word "], endless: true, chunkDelayMs: settings.tokenMs, match: (r) => r.body.stream === true })
const dataDir = tmpDir("aide-bench-fanout-")
const server = await startServer({
  dataDir,
  main,
  nodeArgs,
  env: {
    OPENAI_COMPATIBLE_BASE_URL: fake.url,
    // The bench's own load; the cap checked below is this one.
    AIDE_STREAM_MAX_SUBSCRIBERS_PER_STREAM: String(settings.subscribers),
    AIDE_STREAM_MAX_SUBSCRIBERS: String(settings.subscribers * 2),
    FANOUT_MEM_FILE: memFile,
  },
}).catch(async (error) => {
  await fake.close()
  removeDir(dataDir)
  throw error
})
const { port } = new URL(server.url)

/**
 * One resume subscriber on a raw socket (the cheapest client: the bench shares the 2 cores with
 * the server). Resolves once the status line arrived: { status, ms, bytes(), close() }.
 */
const subscribe = (threadId, token) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = net.connect({ host: "127.0.0.1", port })
    let bytes = 0
    let head = ""
    let resolved = false
    const timer = setTimeout(() => socket.destroy(new Error("no response in 120 s")), 120_000)
    socket.on("connect", () =>
      socket.write(
        `GET /api/chat/${threadId}/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    )
    socket.on("data", (chunk) => {
      bytes += chunk.length
      if (resolved) return
      head += chunk.toString("latin1")
      const lineEnd = head.indexOf("\r\n")
      if (lineEnd === -1) return
      resolved = true
      clearTimeout(timer)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
      head = ""
      resolve({
        status,
        ms: performance.now() - started,
        bytes: () => bytes,
        close: () => socket.destroy(),
      })
    })
    socket.on("error", (error) => {
      clearTimeout(timer)
      if (!resolved) reject(error)
    })
  })

/** RSS and JS heap in use (MiB) after a full GC of the server. */
const rssAfterGc = async () => {
  rmSync(memFile, { force: true })
  server.child.kill("SIGUSR2")
  // A busy server (or machine) may take a while to get to the signal: wait for the file, bounded.
  await sleep(500)
  for (let waited = 500; !existsSync(memFile) && waited < 10_000; waited += 100) await sleep(100)
  await sleep(50)
  const usage = JSON.parse(readFileSync(memFile, "utf8"))
  heapSamples.push(usage.heapUsed / 1024 / 1024)
  return rssMiB(server.pid)
}
const heapSamples = []

/** `GET /` every 50 ms for `seconds`: latencies in ms. */
const sampleRoot = async (seconds) => {
  const samples = []
  const until = performance.now() + seconds * 1000
  while (performance.now() < until) {
    samples.push((await request(server.url, { path: "/" })).ms)
    await sleep(50)
  }
  return samples
}

/** User and system CPU time (ms) of the server so far. */
const cpuSplit = () => {
  const stat = readFileSync(`/proc/${server.pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }
}

/**
 * Server CPU % (of one core; user and system) and `GET /` latencies over one window. On loopback
 * the system share includes the receiving side's TCP work, done in the sender's context.
 */
const measureWindow = async () => {
  const before = cpuSplit()
  const started = performance.now()
  const latencies = await sampleRoot(settings.windowS)
  const after = cpuSplit()
  const wall = performance.now() - started
  return {
    cpuPercent: ((after.user + after.system - before.user - before.system) / wall) * 100,
    userPercent: ((after.user - before.user) / wall) * 100,
    systemPercent: ((after.system - before.system) / wall) * 100,
    rootP50: percentile(latencies, 50),
    rootP99: percentile(latencies, 99),
    rootWorst: [...latencies]
      .sort((a, b) => b - a)
      .slice(0, 5)
      .map((ms) => round(ms, 1)),
    rootSamples: latencies.length,
  }
}

const results = { settings, node: process.version, date: new Date().toISOString(), loadavg: os.loadavg() }
let threadId
let token
const open = []
try {
  token = await setUp(server.url)
  log(`server ${server.url} (pid ${server.pid}${fromSources ? ", from sources" : ""}), fake model ${fake.url}`)

  // The running chat, read by the bench like a client would.
  const chatSocket = await new Promise((resolve, reject) => {
    const payload = JSON.stringify({ parts: [{ type: "text", text: "Talk for ever" }] })
    const socket = net.connect({ host: "127.0.0.1", port }, () =>
      socket.write(
        `POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      ),
    )
    let head = ""
    const onData = (chunk) => {
      head += chunk.toString("utf8")
      const match = /x-thread-id: ([^\r\n]+)/i.exec(head)
      if (match) {
        socket.off("data", onData)
        socket.on("data", () => {})
        threadId = match[1]
        resolve(socket)
      }
    }
    socket.on("data", onData)
    socket.on("error", reject)
  })
  log(`chat running on thread ${threadId}; ${settings.warmupS} s of stream before joining`)
  await sleep(settings.warmupS * 1000)

  const idle = await measureWindow()
  const rssBefore = await rssAfterGc()
  log(`0 subscribers: CPU ${round(idle.cpuPercent, 1)} %, RSS ${round(rssBefore, 1)} MiB`)

  /** N subscribers, FANOUT_BATCH connecting at once; resolves once all have their status line. */
  const joinAll = async () => {
    const joins = []
    const statuses = {}
    const started = performance.now()
    for (let i = 0; i < settings.subscribers; i += settings.batch) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(settings.batch, settings.subscribers - i) }, () => subscribe(threadId, token)),
      )
      for (const subscriber of batch) {
        open.push(subscriber)
        joins.push(subscriber.ms)
        statuses[subscriber.status] = (statuses[subscriber.status] ?? 0) + 1
      }
      if (performance.now() - started > 300_000) throw new Error("joining took more than 5 minutes")
    }
    const wallMs = performance.now() - started
    log(`${open.length} subscribers joined in ${Math.round(wallMs)} ms: ${JSON.stringify(statuses)}`)
    return { statuses, wallMs, p50: percentile(joins, 50), p99: percentile(joins, 99), max: Math.max(...joins) }
  }
  const leaveAll = async () => {
    for (const subscriber of open.splice(0)) subscriber.close()
    await sleep(2000)
    return rssAfterGc()
  }

  const join = await joinAll()
  let overCap
  if (settings.checkCap) {
    const extra = await subscribe(threadId, token)
    overCap = extra.status
    extra.close()
  }
  await sleep(3000)
  const bytesBefore = open.map((subscriber) => subscriber.bytes())
  const loaded = await measureWindow()
  const rssWith = await rssAfterGc()
  // Every subscriber must still be live: each received the same events in the window.
  const received = open.map((subscriber, index) => subscriber.bytes() - bytesBefore[index])
  const live = received.filter((bytes) => bytes > 0).length
  log(
    `${open.length} subscribers: CPU ${round(loaded.cpuPercent, 1)} %, RSS ${round(rssWith, 1)} MiB, ${live} live; worst GET /: ${loaded.rootWorst.join(", ")} ms of ${loaded.rootSamples}`,
  )
  const rssAfter = await leaveAll()
  const afterClose = await measureWindow()
  // A second round: memory that was released is reused, so RSS must not climb again.
  await joinAll()
  const rssWith2 = await rssAfterGc()
  const rssAfter2 = await leaveAll()
  log(`second round: RSS ${round(rssWith2, 1)} MiB with, ${round(rssAfter2, 1)} MiB after`)

  Object.assign(results, {
    threadId,
    statuses: join.statuses,
    overCap,
    join,
    idle,
    loaded,
    afterClose,
    live,
    receivedPerSubscriber: { min: Math.min(...received), max: Math.max(...received) },
    rss: { before: rssBefore, with: rssWith, after: rssAfter, with2: rssWith2, after2: rssAfter2 },
    // Same points: before, with, after, with (2nd round), after (2nd round).
    heapUsed: heapSamples.slice(),
    heapPerSubscriberKiB: ((heapSamples[1] - heapSamples[0]) * 1024) / settings.subscribers,
    heapRetainedPerSubscriberKiB: ((heapSamples[2] - heapSamples[0]) * 1024) / settings.subscribers,
    perSubscriberKiB: ((rssWith - rssBefore) * 1024) / settings.subscribers,
    retainedPerSubscriberKiB: ((rssAfter - rssBefore) * 1024) / settings.subscribers,
  })
  await request(server.url, { method: "POST", path: `/api/chat/${threadId}/stop`, token })
  chatSocket.destroy()
} finally {
  for (const subscriber of open) subscriber.close()
  await server.stop()
  await fake.close()
  removeDir(dataDir)
  rmSync(memFile, { force: true })
}

const r = results
const n = settings.subscribers
const pct = (value) => `${round(value, 1)} %`
const ms = (value) => `${round(value, 1)} ms`
console.log(
  `\nSSE fan-out: ${n} resume subscribers on one chat (a token every ${settings.tokenMs} ms, ${settings.warmupS} s of stream replayed to each joiner); node ${process.version}, ${os.cpus().length} cores, load average ${r.loadavg[0].toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end\n`,
)
console.log(
  table(
    ["measure", "value", "target"],
    [
      [
        "server CPU, 0 subscribers (the run itself): total (user + system)",
        `${pct(r.idle.cpuPercent)} (${pct(r.idle.userPercent)} + ${pct(r.idle.systemPercent)})`,
        "",
      ],
      [
        `server CPU, ${n} subscribers: total (user + system)`,
        `**${pct(r.loaded.cpuPercent)}** (${pct(r.loaded.userPercent)} + ${pct(r.loaded.systemPercent)})`,
        "< 10 %",
      ],
      [
        `added by the ${n} subscribers`,
        `${pct(r.loaded.cpuPercent - r.idle.cpuPercent)} (${round(((r.loaded.cpuPercent - r.idle.cpuPercent) * 10) / n, 3)} ms CPU/s each)`,
        "",
      ],
      [
        "RSS (after GC) before → with → after they left; second round with → after",
        `${round(r.rss.before, 1)} → ${round(r.rss.with, 1)} → ${round(r.rss.after, 1)}; ${round(r.rss.with2, 1)} → ${round(r.rss.after2, 1)} MiB`,
        "flat over rounds",
      ],
      [
        "JS heap in use (after GC) before → with → after; second round with → after",
        `${r.heapUsed.map((mib) => round(mib, 1)).join(" → ")} MiB`,
        "",
      ],
      [
        "memory per subscriber: JS heap / RSS ((with − before) / N)",
        `**${round(r.heapPerSubscriberKiB, 1)} KiB** / ${round(r.perSubscriberKiB, 1)} KiB`,
        "< 20 KB",
      ],
      [
        "still held per subscriber after they left: JS heap / RSS",
        `${round(r.heapRetainedPerSubscriberKiB, 1)} / ${round(r.retainedPerSubscriberKiB, 1)} KiB`,
        "≈ 0",
      ],
      ["`GET /` p50 / p99, 0 subscribers", `${ms(r.idle.rootP50)} / ${ms(r.idle.rootP99)}`, ""],
      [`\`GET /\` p50 / p99, ${n} subscribers`, `${ms(r.loaded.rootP50)} / **${ms(r.loaded.rootP99)}**`, "< 50 ms"],
      [
        `join (connect → status line), p50 / p99 / max, ${settings.batch} at a time (first round)`,
        `${ms(r.join.p50)} / ${ms(r.join.p99)} / ${ms(r.join.max)} (all ${n} in ${Math.round(r.join.wallMs)} ms)`,
        "",
      ],
      ["statuses", JSON.stringify(r.statuses), `{"200":${n}}`],
      ["subscribers receiving during the window", `${r.live} / ${n}`, `${n} / ${n}`],
      ...(r.overCap === undefined ? [] : [["one more over the per-stream cap", String(r.overCap), "429"]]),
    ],
  ),
)
console.log(`\nresults: ${writeResults("fanout", results)}`)
process.exit(0)

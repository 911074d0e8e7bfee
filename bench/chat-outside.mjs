#!/usr/bin/env node
// The chat latency the server adds, measured from outside the way issue 21 judged it
// (/work/shared/outside-bench/chat-latency.mjs): a separate fake OpenAI-compatible model
// (bench/fake-llm.mjs, a copy of the outside one), plain `fetch`, no Aide code. Per chat, one
// request straight to the model, then one POST /api/chat through the server; 22 chats, the first
// 2 warm-up; "added" = median through the server − median direct, to the first text delta and
// to the end of the stream. Also the server's CPU time per chat (/proc/<pid>/stat over the 20
// measured chats, background title calls included), and the main thread's share of it (the rest
// is V8's GC and compiler threads, which do not hold a response back).
//
// Four scenarios, each on a fresh data directory: a new thread per chat or one thread reused,
// with memory on (the default) or `memory.enabled: false`.
//
//   npx -y pnpm@10.20.0 build && node bench/chat-outside.mjs        # ≈ 30 s
//   CHAT_OUTSIDE_SERVERS=/tmp/aide-ab/old/main.js,packages/server/dist/main.js CHAT_OUTSIDE_ROUNDS=3 \
//     node bench/chat-outside.mjs                                    # A/B, builds alternated per round
//
// Knobs: CHAT_OUTSIDE_ROUNDS [1] (median over rounds), CHAT_OUTSIDE_CHATS [22],
//        CHAT_OUTSIDE_SCENARIOS [new,same,new-off,same-off], BENCH_NODE_ARGS (e.g. --cpu-prof),
//        CHAT_OUTSIDE_START_MS [15000] (how long a server may take to start: longer on a loaded machine),
//        CHAT_OUTSIDE_FLOOR=1 (also the floors, each with nothing of Aide: bench/chat-floor-server.mjs,
//        the same chats on the bare stack — node:http, the AI SDK, SQLite —, and
//        bench/chat-effect-floor-server.mjs, the same on the agreed stack — Effect's HttpApi and
//        @effect/sql); or a list of them: CHAT_OUTSIDE_FLOOR=node,effect,effect-router (the last:
//        the agreed stack with an HttpRouter for the HttpApi).
// Prints a markdown table; writes bench/results/chat-outside-<timestamp>.json.

import * as os from "node:os"
import * as path from "node:path"
import {
  cpuMs,
  fetchJson,
  log,
  mainJs,
  mainThreadCpuMs,
  median,
  removeDir,
  root,
  round,
  startFakeModel,
  startServer,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"

const int = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}
const rounds = int("CHAT_OUTSIDE_ROUNDS", 1)
const chats = int("CHAT_OUTSIDE_CHATS", 22)
const warmup = 2
// The floors (CHAT_OUTSIDE_FLOOR): the same chats with nothing of Aide, new and reused thread only
// (they have no memory to turn off).
const floorServers = {
  node: path.join(root, "bench/chat-floor-server.mjs"),
  effect: path.join(root, "bench/chat-effect-floor-server.mjs"),
  "effect-router": path.join(root, "bench/chat-effect-router-floor-server.mjs"),
}
const floorNames =
  process.env.CHAT_OUTSIDE_FLOOR === "1"
    ? ["node", "effect"]
    : (process.env.CHAT_OUTSIDE_FLOOR ?? "").split(",").filter((name) => name !== "" && name !== "0")
for (const name of floorNames)
  if (floorServers[name] === undefined) throw new Error(`CHAT_OUTSIDE_FLOOR: no floor "${name}"`)
const floors = Object.fromEntries(floorNames.map((name) => [name, floorServers[name]]))
const servers = [
  ...(process.env.CHAT_OUTSIDE_SERVERS ?? mainJs).split(",").map((s) => path.resolve(root, s.trim())),
  ...Object.values(floors),
]
const floorPaths = new Set(Object.values(floorServers))
const measured = (main, scenario) => !floorPaths.has(main) || scenario.memory
const scenarioNames = (process.env.CHAT_OUTSIDE_SCENARIOS ?? "new,same,new-off,same-off").split(",")
const scenarios = {
  new: { sameThread: false, memory: true, label: "new thread each chat" },
  same: { sameThread: true, memory: true, label: "one thread reused" },
  "new-off": { sameThread: false, memory: false, label: "new thread, memory off" },
  "same-off": { sameThread: true, memory: false, label: "one thread, memory off" },
}
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)
const PASSWORD = "correct horse battery"

/** One streaming request: [ms to the first chunk `isDelta` accepts, ms to the end, x-thread-id]. */
const timed = async (url, init, isDelta) => {
  const t0 = performance.now()
  const res = await fetch(url, init)
  const reader = res.body.getReader()
  const dec = new TextDecoder()
  let first
  let buf = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buf += dec.decode(value, { stream: true })
    if (first === undefined && isDelta(buf)) first = performance.now() - t0
  }
  return [first ?? Number.NaN, performance.now() - t0, res.headers.get("x-thread-id")]
}

/** One scenario on a fresh server: the outside script's loop, plus the server's CPU per chat. */
const measure = async (main, fake, scenario) => {
  const dataDir = tmpDir("aide-bench-outside-")
  const server = await startServer({
    dataDir,
    main,
    nodeArgs,
    env: { OPENAI_COMPATIBLE_BASE_URL: fake.url, OPENAI_COMPATIBLE_API_KEY: "fake" },
    startMs: int("CHAT_OUTSIDE_START_MS", 15_000),
  })
  const base = server.url.replace(/\/$/, "")
  try {
    const { token } = await fetchJson(base, "POST", "/api/auth/setup", { password: PASSWORD })
    await fetchJson(
      base,
      "PATCH",
      "/api/config",
      {
        models: { operator: { provider: "openai-compatible", model: "fake" } },
        ...(scenario.memory ? {} : { memory: { enabled: false } }),
      },
      token,
    )
    const direct = []
    const through = []
    let threadId
    let cpuBefore = 0
    let mainCpuBefore = 0
    for (let i = 0; i < chats; i++) {
      if (i === warmup) {
        cpuBefore = cpuMs(server.pid)
        mainCpuBefore = mainThreadCpuMs(server.pid)
      }
      const d = await timed(
        `${fake.url}/chat/completions`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "fake", stream: true, messages: [{ role: "user", content: "hello" }] }),
        },
        (b) => b.includes('"content":"Hello'),
      )
      const body = {
        parts: [{ type: "text", text: "hello" }],
        ...(scenario.sameThread && threadId ? { threadId } : {}),
      }
      const s = await timed(
        `${base}/api/chat`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        },
        (b) => b.includes('"text-delta"'),
      )
      threadId ??= s[2]
      if (i >= warmup) {
        direct.push(d)
        through.push(s)
      }
    }
    // Background work of the last chat (its title call) lands in the window too.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const cpuPerChat = (cpuMs(server.pid) - cpuBefore) / (chats - warmup)
    const mainCpuPerChat = (mainThreadCpuMs(server.pid) - mainCpuBefore) / (chats - warmup)
    const first = (xs) => median(xs.map((x) => x[0]))
    const total = (xs) => median(xs.map((x) => x[1]))
    return {
      addedFirst: first(through) - first(direct),
      addedTotal: total(through) - total(direct),
      directFirst: first(direct),
      serverFirst: first(through),
      cpuPerChat,
      mainCpuPerChat,
    }
  } finally {
    await server.stop()
    removeDir(dataDir)
  }
}

const fake = await startFakeModel()
const samples = new Map() // `${server}|${scenario}` -> results of each round
try {
  for (let r = 0; r < rounds; r++) {
    for (const name of scenarioNames) {
      // Builds alternate within a round (and their order flips every round): a machine whose
      // load drifts weighs on both alike.
      const order = r % 2 === 0 ? servers : [...servers].reverse()
      for (const main of order) {
        if (!measured(main, scenarios[name])) continue
        const result = await measure(main, fake, scenarios[name])
        const key = `${main}|${name}`
        samples.set(key, [...(samples.get(key) ?? []), result])
        log(
          `round ${r + 1} ${name} ${path.relative(root, main)}: +${result.addedFirst.toFixed(1)} ms first, +${result.addedTotal.toFixed(1)} ms total, ${result.cpuPerChat.toFixed(1)} ms CPU/chat (main thread ${result.mainCpuPerChat.toFixed(1)})`,
        )
      }
    }
  }
} finally {
  fake.stop()
}

const rows = []
for (const name of scenarioNames) {
  for (const main of servers) {
    const runs = samples.get(`${main}|${name}`)
    if (runs === undefined) continue
    const pick = (field) => round(median(runs.map((x) => x[field])), 1)
    rows.push([
      scenarios[name].label,
      ...(servers.length > 1 ? [path.relative(root, main) || main] : []),
      `+${pick("addedFirst")}`,
      `+${pick("addedTotal")}`,
      pick("cpuPerChat"),
      pick("mainCpuPerChat"),
      runs.map((x) => x.addedFirst.toFixed(1)).join(" / "),
    ])
  }
}
console.log(
  table(
    [
      "scenario",
      ...(servers.length > 1 ? ["build"] : []),
      "added, first delta (ms)",
      "added, whole stream (ms)",
      "server CPU/chat (ms)",
      "of it, main thread (ms)",
      "first delta per round",
    ],
    rows,
  ),
)
const file = writeResults("chat-outside", {
  node: process.version,
  date: new Date().toISOString(),
  loadavg: os.loadavg(),
  rounds,
  chats,
  servers,
  floors,
  samples: Object.fromEntries(samples),
})
log(`results: ${file}`)

#!/usr/bin/env node
// Instructions per chat, counted by valgrind (callgrind): repeatable where time is not. On this
// VM a chat's CPU time swings ±10 % between runs and there are no hardware counters; callgrind's
// count of a chat moves ±4 %. Each server runs twice under callgrind — start, FEW chats, stop; start,
// MANY chats, stop — and the difference over MANY − FEW chats is one chat's instructions, without
// start-up and shutdown. The same chats as bench/chat-outside.mjs (new thread each, the fake model
// of bench/fake-llm.mjs), so servers compare: Aide builds, and the floor (bench/chat-floor-server.mjs).
// Slow: ~1 s a chat under valgrind, ~30 s a start.
//
//   node bench/chat-instructions.mjs                                      # the build, chats 5–16
//   CHAT_INSTRUCTIONS_SERVERS=packages/server/dist/main.js,bench/chat-floor-server.mjs \
//     CHAT_INSTRUCTIONS_FEW=54 CHAT_INSTRUCTIONS_MANY=104 node bench/chat-instructions.mjs
//
// Knobs: CHAT_INSTRUCTIONS_SERVERS [the build], CHAT_INSTRUCTIONS_FEW [4], CHAT_INSTRUCTIONS_MANY [16],
//        CHAT_INSTRUCTIONS_SAME_THREAD=1 (one thread reused), CHAT_INSTRUCTIONS_START_MS [180000]
//        (how long a start under valgrind may take: longer on a loaded machine),
//        CHAT_INSTRUCTIONS_FROM_LISTENING=1 (count from the "listening" line on: `--instr-atstart=no`,
//        then `vgdb instrumentation on`; the start runs under valgrind uninstrumented, several times
//        faster — what lets a loaded machine start a server at all; the difference MANY − FEW is the
//        same chats either way). Needs `valgrind` (Debian's package).
// Prints a markdown table; writes bench/results/chat-instructions-<timestamp>.json.

import { spawnSync } from "node:child_process"
import * as path from "node:path"
import {
  fetchJson,
  log,
  mainJs,
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
  return Number.isInteger(value) && value >= 0 ? value : fallback
}
const few = int("CHAT_INSTRUCTIONS_FEW", 4)
const many = int("CHAT_INSTRUCTIONS_MANY", 16)
const sameThread = process.env.CHAT_INSTRUCTIONS_SAME_THREAD === "1"
const fromListening = process.env.CHAT_INSTRUCTIONS_FROM_LISTENING === "1"
const servers = (process.env.CHAT_INSTRUCTIONS_SERVERS ?? mainJs).split(",").map((s) => path.resolve(root, s.trim()))
const PASSWORD = "correct horse battery"

if (many <= few) throw new Error("CHAT_INSTRUCTIONS_MANY must be more than CHAT_INSTRUCTIONS_FEW")
if (spawnSync("valgrind", ["--version"]).status !== 0)
  throw new Error("valgrind is not installed (apt-get install valgrind)")

/** Start under callgrind, `chats` chats, SIGTERM: the instructions the whole process ran. */
const count = async (main, fakeUrl, chats) => {
  const dataDir = tmpDir("aide-bench-instructions-")
  const server = await startServer({
    dataDir,
    main,
    launcher: [
      "valgrind",
      "--tool=callgrind",
      "--callgrind-out-file=/dev/null",
      ...(fromListening ? ["--instr-atstart=no"] : []),
    ],
    env: { OPENAI_COMPATIBLE_BASE_URL: fakeUrl, OPENAI_COMPATIBLE_API_KEY: "fake" },
    // ~30 s to start under valgrind; its summary is written after the process's own shutdown.
    startMs: int("CHAT_INSTRUCTIONS_START_MS", 180_000),
    stopMs: 120_000,
  })
  try {
    if (fromListening) {
      // Through valgrind's gdbserver (vgdb): callgrind_control does not find a process whose
      // output file is /dev/null, and says so with exit status 0.
      // valgrind names its pipes after $USER and $HOST, and the server runs with HOST=127.0.0.1.
      const on = spawnSync("vgdb", [`--pid=${server.pid}`, "instrumentation", "on"], {
        encoding: "utf8",
        env: { ...process.env, HOST: "127.0.0.1" },
      })
      if (on.status !== 0) throw new Error(`vgdb instrumentation on: ${on.stderr}${on.stdout}`)
    }
    const base = server.url.replace(/\/$/, "")
    const { token } = await fetchJson(base, "POST", "/api/auth/setup", { password: PASSWORD })
    await fetchJson(
      base,
      "PATCH",
      "/api/config",
      { models: { operator: { provider: "openai-compatible", model: "fake" } } },
      token,
    )
    let threadId
    for (let i = 0; i < chats; i++) {
      const res = await fetch(`${base}/api/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          parts: [{ type: "text", text: "hello" }],
          ...(sameThread && threadId ? { threadId } : {}),
        }),
      })
      if (!res.ok) throw new Error(`chat ${i + 1}: ${res.status} ${await res.text()}`)
      threadId ??= res.headers.get("x-thread-id")
      await res.text()
    }
    // The last chat's title call lands inside the count, as every earlier one's did.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
  } finally {
    await server.stop()
    removeDir(dataDir)
  }
  const collected = /Collected : (\d+)/.exec(server.logs())
  if (collected === null) throw new Error(`no instruction count in valgrind's output:\n${server.logs().slice(-2_000)}`)
  return Number(collected[1])
}

const fake = await startFakeModel()
const results = []
try {
  for (const main of servers) {
    const name = path.relative(root, main) || main
    log(`${name}: ${few} chats under callgrind`)
    const fewCount = await count(main, fake.url, few)
    log(`${name}: ${many} chats under callgrind`)
    const manyCount = await count(main, fake.url, many)
    const perChat = (manyCount - fewCount) / (many - few)
    log(`${name}: ${round(perChat / 1e6, 1)} M instructions a chat`)
    results.push({ server: main, few, many, fewCount, manyCount, perChat })
  }
} finally {
  fake.stop()
}

console.log(
  table(
    ["server", `M instructions per chat (chats ${few + 1}–${many})`, `whole run, ${few} / ${many} chats (M)`],
    results.map((r) => [
      path.relative(root, r.server) || r.server,
      round(r.perChat / 1e6, 1),
      `${round(r.fewCount / 1e6, 0)} / ${round(r.manyCount / 1e6, 0)}`,
    ]),
  ),
)
log(
  `results: ${writeResults("chat-instructions", { date: new Date().toISOString(), sameThread, fromListening, results })}`,
)

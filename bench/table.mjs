#!/usr/bin/env node
// The benchmark table (issues 21 and 38), measured: runs each figure's script against the current
// build (one after the other, so they do not compete for the CPU) and prints every figure with
// what it is measured against in the same run — the floor (the same work on the bare stack:
// bench/chat-floor-server.mjs, bench/request-floor-server.mjs, `node -e 0`; for chats also the
// agreed stack's own floor, bench/chat-effect-floor-server.mjs) or the empty data
// directory (the year) —, their ratio, the target and the command. What `pnpm bench` ends with;
// bench/README.md keeps the last run of each figure with its date.
//
//   npx -y pnpm@10.20.0 bench        # build, then this (≈ 6 min)
//   node bench/table.mjs             # against the existing build
//   BENCH_TABLE_ONLY=chat,sessions node bench/table.mjs   # some figures only
//   node bench/table.mjs --update-readme   # also writes the measured rows into bench/README.md
//   BENCH_TABLE_ONLY=year BENCH_YEAR_SCALE=0.1 BENCH_YEAR_STORAGE=sqlite,postgres node bench/table.mjs
//   BENCH_TABLE_ONLY=instructions node bench/table.mjs   # instructions per chat under callgrind (≈ 6 min)
//
// Figure keys: chat, instructions (only when named: slow), requests, idle, fanout, plugin, console,
// year, first-start (last: it deletes the builds and `aide start` makes them again).
//
// The year of use (`year`, bench/year.mjs) runs when asked (BENCH_TABLE_ONLY=year, or
// BENCH_YEAR_SCALE set), or in a default run when the year at BENCH_YEAR_SCALE [0.1] is already
// seeded (`<tmp>/aide-year-<scale>`, and `aide-year-pg-<scale>` for PostgreSQL): seeding takes
// many minutes (scale 0.1: 22 min on SQLite, 26 on PostgreSQL, on a busy machine), so a default run never seeds.
//
// A figure whose script fails (no Chromium, no console build…) prints its error instead of a
// value; the others still run. Exit status 1 when any failed.

import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { log, root, round, table } from "./harness.mjs"

const resultsDir = path.join(root, "bench/results")

/** Runs `args` (node flags and a script of bench/) with `env`; the newest result file it wrote whose name starts with `prefix`. */
const measure = (args, env, prefix, timeoutMinutes = 15) => {
  const before = new Set(safeList())
  log(`node ${args.join(" ")}`)
  const run = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
    timeout: timeoutMinutes * 60_000,
  })
  if (run.status !== 0) throw new Error(`exited with ${run.status ?? run.signal}`)
  const written = safeList()
    .filter((file) => !before.has(file) && prefix(file))
    .sort()
  if (written.length === 0) throw new Error("wrote no results")
  return JSON.parse(readFileSync(path.join(resultsDir, written.at(-1)), "utf8"))
}
const safeList = () => {
  try {
    return readdirSync(resultsDir).filter((file) => file.endsWith(".json"))
  } catch {
    return []
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const yearScale = process.env.BENCH_YEAR_SCALE ?? "0.1"
const yearStorages = (process.env.BENCH_YEAR_STORAGE ?? "sqlite").split(",")
const yearSeeded = (storage) =>
  existsSync(
    path.join(
      os.tmpdir(),
      storage === "postgres" ? `aide-year-pg-${yearScale}` : `aide-year-${yearScale}`,
      "year-seed.json",
    ),
  )

// Aide, the agreed stack's floor, the node floor: in this order in the instruction rows' results.
const instructionServers = "packages/server/dist/main.js,bench/chat-effect-floor-server.mjs,bench/chat-floor-server.mjs"

const ratio = (value, beside) => `${round(value / beside, 2)}×`
const fmtInt = (value) => Math.round(value).toLocaleString("en-US")

/**
 * The figures: a key (BENCH_TABLE_ONLY), the command shown, and how to measure them. Each row:
 * [figure, value, what it is measured beside (the floor, `node -e 0`, the empty data directory;
 * "" when nothing), the ratio ("" when none), target].
 */
const figures = [
  {
    key: "chat",
    command: "CHAT_OUTSIDE_FLOOR=1 node bench/chat-outside.mjs",
    run: () => {
      const result = measure(["bench/chat-outside.mjs"], { CHAT_OUTSIDE_FLOOR: "1" }, (file) =>
        file.startsWith("chat-outside-"),
      )
      // The node floor and, beside it, the agreed stack's (Effect, HttpApi, @effect/sql): Aide / the
      // Effect floor is what Aide's own code costs over the stack DESIGN.md mandates.
      const [server] = result.servers
      const floor = result.floors.node
      const effect = result.floors.effect
      const of = (main, scenario, field) => median(result.samples[`${main}|${scenario}`].map((sample) => sample[field]))
      const rows = []
      for (const [scenario, label] of [
        ["new", "new thread"],
        ["same", "same thread"],
      ]) {
        const aide = of(server, scenario, "addedFirst")
        const bare = of(floor, scenario, "addedFirst")
        const stack = of(effect, scenario, "addedFirst")
        rows.push([
          `chat, added to the first delta, ${label}: Aide / floor`,
          `+${round(aide, 1)} ms`,
          `floor +${round(bare, 1)} ms; Effect floor +${round(stack, 1)} ms`,
          `${ratio(aide, bare)} (Effect floor ${ratio(aide, stack)})`,
          "≤ 1.2×",
        ])
      }
      for (const [scenario, label] of [
        ["new", "new thread"],
        ["same", "same thread"],
      ]) {
        const aide = of(server, scenario, "cpuPerChat")
        const bare = of(floor, scenario, "cpuPerChat")
        const stack = of(effect, scenario, "cpuPerChat")
        const aideMain = of(server, scenario, "mainCpuPerChat")
        const bareMain = of(floor, scenario, "mainCpuPerChat")
        const stackMain = of(effect, scenario, "mainCpuPerChat")
        rows.push([
          `server CPU per chat, ${label}: Aide / floor (main thread)`,
          `${round(aide, 1)} ms (main ${round(aideMain, 1)})`,
          `floor ${round(bare, 1)} ms (main ${round(bareMain, 1)}); Effect floor ${round(stack, 1)} ms (main ${round(stackMain, 1)})`,
          `${ratio(aide, bare)} (main ${ratio(aideMain, bareMain)}); Effect floor ${ratio(aide, stack)} (main ${ratio(aideMain, stackMain)})`,
          "≤ 1.25× (instructions: row below)",
        ])
      }
      rows.push([
        "chat with `memory.enabled: false`, added to the first delta, new / same thread",
        `+${round(of(server, "new-off", "addedFirst"), 1)} / +${round(of(server, "same-off", "addedFirst"), 1)} ms`,
        "",
        "",
        "",
      ])
      return rows
    },
  },
  {
    // Only when named: two servers, each started twice under valgrind.
    key: "instructions",
    command: `CHAT_INSTRUCTIONS_FROM_LISTENING=1 CHAT_INSTRUCTIONS_SERVERS=${instructionServers} node bench/chat-instructions.mjs`,
    optIn: () => false,
    run: () =>
      [
        ["0", "new thread"],
        ["1", "same thread"],
      ].map(([same, label]) => {
        const result = measure(
          ["bench/chat-instructions.mjs"],
          {
            CHAT_INSTRUCTIONS_SERVERS: instructionServers,
            // The Effect floor's start (3.7 s of CPU) under full instrumentation outlasts any timeout
            // on a loaded machine; the chats are counted the same from "listening" on.
            CHAT_INSTRUCTIONS_FROM_LISTENING: "1",
            CHAT_INSTRUCTIONS_SAME_THREAD: same,
          },
          (file) => file.startsWith("chat-instructions-"),
          30,
        )
        const [aide, effect, floor] = result.results
        return [
          `instructions per chat, ${label}: Aide / floor (callgrind)`,
          `${round(aide.perChat / 1e6, 1)} M`,
          `floor ${round(floor.perChat / 1e6, 1)} M; Effect floor ${round(effect.perChat / 1e6, 1)} M`,
          `${ratio(aide.perChat, floor.perChat)} (Effect floor ${ratio(aide.perChat, effect.perChat)})`,
          "≤ 1.25×",
        ]
      }),
  },
  {
    key: "requests",
    command:
      "node bench/ab.mjs snapshot table && AB_ROUNDS=4 AB_SECONDS=4 AB_CONNECTIONS=10 node bench/ab.mjs floor floor-api table",
    run: () => {
      const snapshot = spawnSync(process.execPath, ["bench/ab.mjs", "snapshot", "table"], {
        cwd: root,
        stdio: "inherit",
      })
      if (snapshot.status !== 0) throw new Error("snapshot failed")
      const result = measure(
        ["bench/ab.mjs", "floor", "floor-api", "table"],
        { AB_ROUNDS: "4", AB_SECONDS: "4", AB_CONNECTIONS: "10", AB_ROUTES: "/,/api/auth/sessions" },
        (file) => file.startsWith("ab-"),
      )
      const of = (variant, route, field) => median(result.samples[variant].map((sample) => sample[route][field]))
      const sessions = of("table", "/api/auth/sessions", "rps")
      const root_ = of("table", "/", "rps")
      return [
        [
          "`GET /api/auth/sessions` / `GET /`, req/s (autocannon, 10 connections)",
          `${fmtInt(sessions)} / ${fmtInt(root_)} req/s (CPU ${fmtInt(of("table", "/api/auth/sessions", "us"))} / ${fmtInt(of("table", "/", "us"))} µs a request)`,
          `floor ${fmtInt(of("floor", "/api/auth/sessions", "rps"))} / ${fmtInt(of("floor", "/", "rps"))} req/s`,
          ratio(sessions, root_),
          "≥ 0.9×",
        ],
        [
          "`GET /` CPU per request: Aide / node:http answering the same JSON (`bench/request-floor-server.mjs`)",
          `${fmtInt(of("table", "/", "us"))} µs`,
          `floor ${fmtInt(of("floor", "/", "us"))} µs`,
          ratio(of("table", "/", "us"), of("floor", "/", "us")),
          "≤ 2×",
        ],
        [
          "`GET /` CPU per request: Aide / the same JSON from @effect/platform's HttpApi on NodeHttpServer, nothing else (`bench/request-effect-floor-server.mjs`)",
          `${fmtInt(of("table", "/", "us"))} µs`,
          `stack floor ${fmtInt(of("floor-api", "/", "us"))} µs (node:http ${fmtInt(of("floor", "/", "us"))} µs: ${ratio(of("floor-api", "/", "us"), of("floor", "/", "us"))})`,
          ratio(of("table", "/", "us"), of("floor-api", "/", "us")),
          "(reference)",
        ],
        [
          "`GET /api/auth/sessions` CPU per request: Aide / the floor's JWT check + session query",
          `${fmtInt(of("table", "/api/auth/sessions", "us"))} µs`,
          `floor ${fmtInt(of("floor", "/api/auth/sessions", "us"))} µs`,
          ratio(of("table", "/api/auth/sessions", "us"), of("floor", "/api/auth/sessions", "us")),
          "(reference)",
        ],
      ]
    },
  },
  {
    key: "idle",
    command: "IDLE_ROUNDS=3 node bench/idle-memory.mjs",
    run: () => {
      const result = measure(["bench/idle-memory.mjs"], { IDLE_ROUNDS: "3" }, (file) => file.startsWith("idle-memory-"))
      // As `aide-server` runs it, then with the environment `pnpm start` gives Node (glibc's malloc thresholds).
      const rows = { plain: "`aide-server`", start: "`pnpm start`" }
      return result.servers.map((server) => [
        `idle server RSS (${rows[server.launch ?? "plain"]}), 1 s after the first \`GET /\` (after 30 s at rest)`,
        `${round(server.early.rss, 1)} MiB (${round(server.late.rss, 1)} MiB)`,
        `\`node -e 0\` ${round(result.empty.rss, 1)} MiB`,
        `+${round(server.early.rss - result.empty.rss, 1)} MiB`,
        "≤ 90 MiB",
      ])
    },
  },
  {
    key: "fanout",
    command: "BENCH_SERVER=packages/server/dist/main.js node --import tsx bench/fanout.mjs",
    run: () => {
      const result = measure(
        ["--import", "tsx", "bench/fanout.mjs"],
        { BENCH_SERVER: "packages/server/dist/main.js" },
        (file) => file.startsWith("fanout-"),
      )
      return [
        [
          "2,000 idle SSE subscribers on one stream: server CPU",
          `${round(result.loaded.cpuPercent, 1)} %`,
          `no subscriber ${round(result.idle.cpuPercent, 1)} %`,
          "",
          "< 10 %",
        ],
        [
          "idle SSE subscriber memory (2,000 on one stream)",
          `${round(result.heapPerSubscriberKiB, 1)} KiB JS heap / ${round(result.perSubscriberKiB, 1)} KiB RSS`,
          "",
          "",
          "< 20 KiB",
        ],
      ]
    },
  },
  {
    key: "plugin",
    command: "node bench/plugin-call.mjs",
    run: () => {
      const result = measure(["bench/plugin-call.mjs"], {}, (file) => file.startsWith("plugin-call-"))
      // The start A/B's precompiled row: how the loader starts a compartment (its modules compiled
      // when the plugin was enabled). The host-trust row is the Node floor on the same machine.
      const row = result.starts.rows.find((candidate) => candidate.name === "compartment, precompiled")
      const floor = result.starts.rows.find((candidate) => /^host trust/.test(candidate.name))
      // An empty `node -e 0` in the same rounds: issue 38's RSS target is relative to it.
      const empty = result.starts.rows.find((candidate) => candidate.name === "`node -e 0`")
      return [
        [
          "compartment plugin process RSS − `node -e 0` RSS",
          `${row.rssMiB} MiB (${row.calledRssMiB} MiB after its first tool call; private ${row.privateMiB} MiB)`,
          `\`node -e 0\` ${empty.rssMiB} MiB`,
          `+${row.overEmptyMiB} MiB`,
          "≤ +8 MiB",
        ],
        [
          "compartment plugin process start",
          `${row.startMs} ms (CPU ${row.cpuMs} ms)`,
          `host-trust process ${floor.startMs} ms`,
          ratio(row.startMs, floor.startMs),
          "< 150 ms",
        ],
      ]
    },
  },
  {
    key: "console",
    command: "node bench/console.mjs",
    run: () => {
      const result = measure(["bench/console.mjs"], {}, (file) => file.startsWith("console-"))
      const raw = result.firstLoad.reduce((sum, entry) => sum + (/\.js$/.test(entry.file) ? entry.raw : 0), 0)
      return [
        [
          "console first load, JavaScript over the wire (brotli; raw / gzip)",
          `${result.wireJsKiB} KiB (${round(raw / 1024, 1)} KiB / ${result.jsGzipKiB} KiB)`,
          "",
          "",
          `< ${result.wireBudgetKiB} KiB`,
        ],
      ]
    },
  },
  {
    // A year of use beside an empty data directory: one row per figure of bench/year.mjs, per storage.
    key: "year",
    command: `node bench/year.mjs --scale ${yearScale} --storage ${yearStorages.join("|")}`,
    optIn: () => process.env.BENCH_YEAR_SCALE !== undefined || yearStorages.every((storage) => yearSeeded(storage)),
    run: () =>
      yearStorages.flatMap((storage) => {
        const result = measure(
          // 20 chats a kind: with 6, one run put the long thread's first delta at 1.51× the empty
          // directory and the next, 20 chats, at 0.99× (2026-11-29, PostgreSQL).
          ["bench/year.mjs", "--scale", yearScale, "--storage", storage, "--samples", "40", "--chats", "20"],
          {},
          (file) => file.startsWith(`year-${storage}-`),
          yearSeeded(storage) ? 15 : 90,
        )
        const label = `year ${yearScale} (${storage === "postgres" ? "PostgreSQL" : "SQLite"})`
        return result.rows.map(([figure, empty, year, yearRatio, target]) => [
          `${label}: ${figure}`,
          year,
          empty === "" ? "" : `empty ${empty}`,
          yearRatio,
          target,
        ])
      }),
  },
  {
    // Last: it deletes the server bundle and the console build, and `aide start` builds them again.
    key: "first-start",
    command: "BENCH_INSTALL=1 BENCH_RUNS=1 node bench/first-start.mjs",
    run: () => {
      const result = measure(["bench/first-start.mjs"], { BENCH_INSTALL: "1", BENCH_RUNS: "1" }, (file) =>
        file.startsWith("first-start-"),
      )
      const [runs] = Object.values(result.repos)
      const api = median(runs.map((run) => run.api)) / 1000
      const console_ = median(runs.map((run) => run.console)) / 1000
      return [
        [
          "first `start` after install until the API / the console answers",
          `${round(api, 1)} s / ${round(console_, 1)} s`,
          "",
          "",
          "≤ 5 s",
        ],
      ]
    },
  },
]

const header = ["figure", "command", "value (date)", "measured beside it", "ratio", "target"]

/**
 * Writes the measured rows into bench/README.md's table (between its table markers): a row of
 * the same figure is replaced, a new figure appended; figures not measured this run keep their
 * row and its date.
 */
function updateReadme(measured, date) {
  const file = path.join(root, "bench/README.md")
  const text = readFileSync(file, "utf8")
  const start = text.indexOf("<!-- table:start -->")
  const end = text.indexOf("<!-- table:end -->")
  if (start === -1 || end === -1) throw new Error("bench/README.md has no table markers")
  const cells = (line) => line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, ""))
  const lines = text
    .slice(start, end)
    .split("\n")
    .slice(1)
    .filter((line) => line.startsWith("|"))
  // Rows of an older layout (fewer columns) are dropped: their figures were measured otherwise.
  const kept = lines.slice(2).filter((line) => cells(line).length === header.length)
  // A row's name may carry counts of that run ("first page (8 / 2049 roots)", "2086-message
  // thread"): it replaces the row of the same figure whatever its counts, and any duplicate of it.
  const figureOf = (name) => name.replace(/\s*\([^)]*\d[^)]*\)/g, "").replace(/\b\d+-message\b/g, "N-message")
  for (const [name, value, beside, rowRatio, target, command] of measured) {
    const row = `| ${name} | ${command} | ${value} (${date}) | ${beside} | ${rowRatio} | ${target} |`
    const same = (line) => figureOf(cells(line)[0]) === figureOf(name)
    const at = kept.findIndex(same)
    if (at === -1) kept.push(row)
    else {
      kept[at] = row
      for (let i = kept.length - 1; i > at; i--) if (same(kept[i])) kept.splice(i, 1)
    }
  }
  const block = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...kept].join("\n")
  writeFileSync(file, `${text.slice(0, start)}<!-- table:start -->\n${block}\n${text.slice(end)}`)
  log("bench/README.md: table updated")
}

const only = process.env.BENCH_TABLE_ONLY?.split(",")
const rows = []
let failed = false
for (const figure of figures) {
  if (only !== undefined && !only.includes(figure.key)) continue
  if (only === undefined && figure.optIn !== undefined && !figure.optIn()) {
    log(`${figure.key}: not run (BENCH_TABLE_ONLY=${figure.key} runs it)`)
    continue
  }
  try {
    for (const row of figure.run()) rows.push([...row, `\`${figure.command}\``])
  } catch (error) {
    failed = true
    rows.push([figure.key, `failed: ${error.message}`, "", "", "", `\`${figure.command}\``])
  }
}
const date = new Date().toISOString().slice(0, 10)
console.log(`\n${date}:\n`)
console.log(table(["figure", "value", "measured beside it", "ratio", "target", "command"], rows))
if (process.argv.includes("--update-readme")) updateReadme(rows, date)
if (failed) process.exit(1)

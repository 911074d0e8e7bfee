#!/usr/bin/env node
// The benchmark table of issue 21, measured: runs each figure's script against the current build
// (one after the other, so they do not compete for the CPU) and prints every figure with its
// command, value and target. What `pnpm bench` ends with; bench/README.md keeps the last run.
//
//   npx -y pnpm@10.20.0 bench        # build, then this (≈ 6 min)
//   node bench/table.mjs             # against the existing build
//   BENCH_TABLE_ONLY=chat,sessions node bench/table.mjs   # some figures only
//   node bench/table.mjs --update-readme   # also writes the measured rows into bench/README.md
//   BENCH_TABLE_ONLY=year BENCH_YEAR_SCALE=0.1 BENCH_YEAR_STORAGE=sqlite,postgres node bench/table.mjs
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

/** The figures: name, target, the command shown, and how to measure them (rows of [figure, value]). */
const figures = [
  {
    key: "chat",
    command: "node bench/chat-outside.mjs",
    run: () => {
      const result = measure(["bench/chat-outside.mjs"], { CHAT_OUTSIDE_FLOOR: "1" }, (file) =>
        file.startsWith("chat-outside-"),
      )
      const [server, floor] = result.servers
      const of = (scenario, field) => median(result.samples[`${server}|${scenario}`].map((sample) => sample[field]))
      const ofFloor = (scenario, field) => median(result.samples[`${floor}|${scenario}`].map((sample) => sample[field]))
      const cpu = median(
        ["new", "same", "new-off", "same-off"].flatMap((scenario) =>
          result.samples[`${server}|${scenario}`].map((sample) => sample.cpuPerChat),
        ),
      )
      const mainCpu = median(
        ["new", "same", "new-off", "same-off"].flatMap((scenario) =>
          result.samples[`${server}|${scenario}`].map((sample) => sample.mainCpuPerChat),
        ),
      )
      return [
        [
          "chat latency the server adds, first text delta, new thread each chat",
          `+${round(of("new", "addedFirst"), 1)} ms`,
          "< 10 ms",
        ],
        ["same, one thread reused", `+${round(of("same", "addedFirst"), 1)} ms`, "< 10 ms"],
        [
          "same with `memory.enabled: false` (new / reused thread)",
          `+${round(of("new-off", "addedFirst"), 1)} / +${round(of("same-off", "addedFirst"), 1)} ms`,
          "",
        ],
        [
          "server CPU per chat (the four scenarios)",
          `${round(cpu, 1)} ms, the median of the four (main thread ${round(mainCpu, 1)} ms; the rest V8's GC and compiler threads)`,
          "< 10 ms",
        ],
        [
          "the floor: the same chats on the bare stack (`bench/chat-floor-server.mjs`: node:http, the AI SDK, SQLite, nothing of Aide), new / reused thread",
          `+${round(ofFloor("new", "addedFirst"), 1)} / +${round(ofFloor("same", "addedFirst"), 1)} ms added, ${round(ofFloor("new", "cpuPerChat"), 1)} / ${round(ofFloor("same", "cpuPerChat"), 1)} ms CPU`,
          "(reference)",
        ],
      ]
    },
  },
  {
    key: "sessions",
    command: "BENCH_CONNECTIONS=10 BENCH_STORAGE=sqlite node bench/run.mjs",
    run: () => {
      const result = measure(
        ["bench/run.mjs"],
        { BENCH_CONNECTIONS: "10", BENCH_STORAGE: "sqlite", BENCH_DURATION: "5", BENCH_COLD_STARTS: "3" },
        (file) => /^\d{4}-/.test(file),
      )
      const routes = result.results[0].routes
      const root_ = routes.find((route) => route.route === "GET /")
      const sessions = routes.find((route) => route.route === "GET /api/auth/sessions")
      return [
        [
          "authenticated `GET /api/auth/sessions`, req/s (autocannon, 10 connections)",
          `${Math.round(sessions.reqPerSec).toLocaleString("en-US")} (${round(sessions.reqPerSec / root_.reqPerSec, 2)}× of \`GET /\`; CPU ${Math.round(sessions.cpuUsPerReq)} vs ${Math.round(root_.cpuUsPerReq)} µs/req)`,
          "≥ 4,000 and ≥ 0.8× `GET /`",
        ],
      ]
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
          "idle SSE subscriber memory (2,000 on one stream)",
          `${round(result.heapPerSubscriberKiB, 1)} KiB JS heap / ${round(result.perSubscriberKiB, 1)} KiB RSS`,
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
          "compartment plugin process: start / RSS",
          `${row.startMs} ms / ${row.rssMiB} MiB, +${row.overEmptyMiB} MiB over \`node -e 0\` (${empty.rssMiB} MiB, same rounds); ${row.calledRssMiB} MiB after its first tool call (CPU ${row.cpuMs} ms, private ${row.privateMiB} MiB; a host-trust process, the Node floor: ${floor.startMs} ms / ${floor.rssMiB} MiB)`,
          "< 150 ms / ≤ +8 MiB over `node -e 0`",
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
          "console first load, JavaScript (raw / gzip)",
          `${round(raw / 1024, 1)} KiB / ${result.jsGzipKiB} KiB`,
          "served compressed, < 150 KB",
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
          ["bench/year.mjs", "--scale", yearScale, "--storage", storage, "--samples", "40", "--chats", "6"],
          {},
          (file) => file.startsWith(`year-${storage}-`),
          yearSeeded(storage) ? 15 : 90,
        )
        const label = `year ${yearScale} (${storage === "postgres" ? "PostgreSQL" : "SQLite"})`
        return result.rows.map(([figure, empty, year, ratio, target]) => [
          `${label}: ${figure}`,
          `${year}${empty === "" ? "" : ` vs empty ${empty} (${ratio})`}`,
          target,
        ])
      }),
  },
  {
    // Last: it deletes the server bundle and the console build, and `aide start` builds them again.
    key: "first-start",
    command: "node bench/first-start.mjs",
    run: () => {
      const result = measure(["bench/first-start.mjs"], {}, (file) => file.startsWith("first-start-"))
      const [runs] = Object.values(result.repos)
      const api = median(runs.map((run) => run.api)) / 1000
      const console_ = median(runs.map((run) => run.console)) / 1000
      return [
        [
          "first `start` on a fresh clone until the API / the console answers",
          `${round(api, 1)} s / ${round(console_, 1)} s`,
          "API < 10 s, console < 30 s",
        ],
      ]
    },
  },
]

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
  const kept = lines.slice(2)
  for (const [name, value, target, command] of measured) {
    const row = `| ${name} | ${command} | ${value} (${date}) | ${target} |`
    const at = kept.findIndex((line) => cells(line)[0] === name)
    if (at === -1) kept.push(row)
    else kept[at] = row
  }
  const block = ["| figure | command | last value (date) | target |", "|---|---|---|---|", ...kept].join("\n")
  writeFileSync(file, `${text.slice(0, start)}<!-- table:start -->\n${block}\n${text.slice(end)}`)
  log("bench/README.md: table updated")
}

const only = process.env.BENCH_TABLE_ONLY?.split(",")
const rows = []
let failed = false
for (const figure of figures) {
  if (only !== undefined && !only.includes(figure.key)) continue
  if (only === undefined && figure.optIn !== undefined && !figure.optIn()) {
    rows.push([figure.key, "not run: no seeded year (BENCH_TABLE_ONLY=year seeds one)", "", `\`${figure.command}\``])
    continue
  }
  try {
    for (const [name, value, target] of figure.run()) rows.push([name, value, target, `\`${figure.command}\``])
  } catch (error) {
    failed = true
    rows.push([figure.key, `failed: ${error.message}`, "", `\`${figure.command}\``])
  }
}
const date = new Date().toISOString().slice(0, 10)
console.log(`\n${date}:\n`)
console.log(table(["figure", "value", "target", "command"], rows))
if (process.argv.includes("--update-readme")) updateReadme(rows, date)
if (failed) process.exit(1)

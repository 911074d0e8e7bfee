#!/usr/bin/env node
// Idle server memory (issue 38): starts built servers on a fresh data directory each, waits for
// `GET /`, and reads /proc/<pid>/smaps after 1 s and after IDLE_LATE_S [30] s of rest (V8's memory
// reducer runs in between): RSS, and what holds it — the Node binary and other files, glibc's
// malloc heap, V8's 256 KiB heap pages (young generation, old space, code, module sources).
//
//   node bench/idle-memory.mjs [main.js …]          # default: packages/server/dist/main.js
//   IDLE_ROUNDS=3 node bench/idle-memory.mjs /tmp/aide-ab/base/main.js /tmp/aide-ab/after/main.js
//
// Several servers are measured in alternating rounds (an A/B); medians are printed. Each is measured
// twice: as `node dist/main.js` (`aide-server`) runs it, and with the environment that the
// repository's `pnpm start` script sets before Node starts (glibc's malloc thresholds, read from
// the root package.json so the bench follows the script): IDLE_LAUNCHES=plain or =start for one.

import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { median, root, sleep, writeResults } from "./harness.mjs"

const mains = process.argv.length > 2 ? process.argv.slice(2) : [path.join(root, "packages/server/dist/main.js")]
const rounds = Number(process.env.IDLE_ROUNDS ?? 1)
const lateS = Number(process.env.IDLE_LATE_S ?? 30)

/** The `NAME=${NAME:-value}` assignments in front of the root `start` script's command. */
const startEnv = () => {
  const script = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.start
  const env = {}
  for (const [, name, value] of script.matchAll(/(?:^|\s)([A-Z_]+)=\$\{\1:-([^}]*)\}/g)) env[name] = value
  return env
}
const launches = [
  { name: "plain", label: "", env: {} },
  { name: "start", label: " (`pnpm start`)", env: startEnv() },
].filter((launch) => (process.env.IDLE_LAUNCHES ?? "plain,start").split(",").includes(launch.name))

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
const answers = (port) =>
  new Promise((resolve) => {
    http
      .get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode === 200))
      })
      .on("error", () => resolve(false))
  })

/** MiB by holder, from smaps: files (the Node binary first), malloc's heap, anonymous mappings. */
const breakdown = (pid) => {
  const out = { rss: 0, node: 0, files: 0, malloc: 0, anonymous: 0 }
  for (const block of readFileSync(`/proc/${pid}/smaps`, "utf8").split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const head = block.slice(0, block.indexOf("\n"))
    const kib = Number(/\nRss:\s+(\d+)/.exec(block)?.[1] ?? 0)
    const mib = kib / 1024
    out.rss += mib
    const file = head.split(/\s+/).slice(5).join(" ")
    if (file.endsWith("/node")) out.node += mib
    else if (file.startsWith("/")) out.files += mib
    else if (file === "[heap]") out.malloc += mib
    else out.anonymous += mib
  }
  return out
}

const measure = async (main, launch) => {
  const port = await freePort()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "aide-idle-memory-"))
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      ...launch.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      AIDE_DATA_DIR: dataDir,
      AIDE_LOG_LEVEL: "Warning",
    },
    stdio: ["ignore", "ignore", "inherit"],
  })
  try {
    while (!(await answers(port))) await sleep(10)
    await sleep(1000)
    const early = breakdown(child.pid)
    await sleep(lateS * 1000 - 1000)
    return { early, late: breakdown(child.pid) }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** An empty Node process (what `node -e 0` holds, kept alive to be read): the floor of every RSS here. */
const measureEmpty = async () => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" })
  try {
    await sleep(1000)
    return breakdown(child.pid)
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
}

const runs = mains.flatMap((main) => launches.map((launch) => ({ main, launch })))
const samples = new Map(runs.map((run) => [run, []]))
const empties = []
for (let round = 0; round < rounds; round++) {
  for (const run of round % 2 === 0 ? runs : [...runs].reverse())
    samples.get(run).push(await measure(run.main, run.launch))
  empties.push(await measureEmpty())
}
const fmt = (list, key) => median(list.map((sample) => sample[key])).toFixed(1)
console.log(`| server | when | RSS | Node binary | other files | malloc heap | anonymous (V8 heap pages…) |`)
console.log(`| --- | --- | ---: | ---: | ---: | ---: | ---: |`)
for (const [{ main, launch }, list] of samples) {
  for (const when of ["early", "late"]) {
    const at = list.map((sample) => sample[when])
    console.log(
      `| ${path.basename(path.dirname(main))}${launch.label} | ${when === "early" ? "1 s" : `${lateS} s`} | ${fmt(at, "rss")} | ${fmt(at, "node")} | ${fmt(at, "files")} | ${fmt(at, "malloc")} | ${fmt(at, "anonymous")} |`,
    )
  }
}
const medians = (list) => Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((x) => x[key]))]))
const empty = medians(empties)
console.log(
  `| \`node -e 0\` | 1 s | ${empty.rss.toFixed(1)} | ${empty.node.toFixed(1)} | ${empty.files.toFixed(1)} | ${empty.malloc.toFixed(1)} | ${empty.anonymous.toFixed(1)} |`,
)
console.log(
  `results: ${writeResults("idle-memory", {
    lateS,
    rounds,
    empty,
    servers: [...samples].map(([{ main, launch }, list]) => ({
      main,
      launch: launch.name,
      env: launch.env,
      early: medians(list.map((sample) => sample.early)),
      late: medians(list.map((sample) => sample.late)),
    })),
  })}`,
)

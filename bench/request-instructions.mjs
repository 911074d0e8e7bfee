#!/usr/bin/env node
// Instructions per request, counted by valgrind (callgrind): repeatable where CPU time is not (on
// this shared VM CPU per request moves 2–3× with the load, and with how many requests each wake of
// the event loop finds). Each server starts once under callgrind; every route is warmed; then, per
// route, the counters are zeroed, N requests sent one after another on one keep-alive connection,
// the counters dumped, and again with 2N: (I(2N) − I(N)) / N is one request, without the dump's and
// the zeroing's own cost. Servers: a snapshot of `bench/ab.mjs snapshot <name>`, `floor`
// (bench/request-floor-server.mjs), `floor-api` / `floor-router` (the same answers from
// @effect/platform: bench/request-effect-floor-server.mjs), or a path to a main.js. Slow: a start takes 1–3 min. Not yet
// as repeatable as hoped: a major GC or a tier-up in one window swings a figure by millions of
// instructions, so keep the defaults (or more); see bench/README.md "Tools".
//
//   node bench/request-instructions.mjs floor base after
//
// Knobs: REQ_INSTR_N [200], REQ_INSTR_WARM [1500], REQ_INSTR_ROUTES [/,/api/auth/sessions].
// Needs `valgrind` (Debian's package, with callgrind_control).

import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const servers = process.argv.slice(2)
const n = Number(process.env.REQ_INSTR_N ?? 200)
const warm = Number(process.env.REQ_INSTR_WARM ?? 1500)
const routes = (process.env.REQ_INSTR_ROUTES ?? "/,/api/auth/sessions").split(",").filter(Boolean)
// valgrind names its vgdb pipes after $HOST, which the servers read as their listening address.
const host = "127.0.0.1"

const effectFloorOf = (server) => /^floor-(api|router|fiber)$/.exec(server)?.[1]
const entryOf = (server) =>
  server === "floor"
    ? path.join(root, "bench/request-floor-server.mjs")
    : effectFloorOf(server) !== undefined
      ? path.join(root, "bench/request-effect-floor-server.mjs")
      : server.endsWith(".js") || server.endsWith(".mjs")
        ? path.resolve(server)
        : path.join("/tmp/aide-ab", server, "main.js")

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, host, () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const call = (port, method, urlPath, headers = {}, body) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host,
        port,
        method,
        path: urlPath,
        agent,
        headers: payload === undefined ? headers : { ...headers, "content-type": "application/json" },
      },
      (res) => {
        let text = ""
        res.on("data", (c) => {
          text += c
        })
        res.on("end", () => resolve({ status: res.statusCode, text }))
      },
    )
    req.on("error", reject)
    req.end(payload)
  })

const control = (pid, flag) => {
  const r = spawnSync("callgrind_control", [flag, String(pid)], { env: { ...process.env, HOST: host } })
  if (r.status !== 0) throw new Error(`callgrind_control ${flag}: ${r.stderr}`)
}

const measure = async (server) => {
  const port = await freePort()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "aide-instr-"))
  const out = path.join(dataDir, "callgrind.out")
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", `--callgrind-out-file=${out}`, process.execPath, entryOf(server)],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: host,
        AIDE_DATA_DIR: dataDir,
        AIDE_LOG_LEVEL: "Warning",
        ...(effectFloorOf(server) === undefined ? {} : { EFFECT_FLOOR: effectFloorOf(server) }),
      },
      stdio: ["ignore", "ignore", "ignore"],
    },
  )
  try {
    for (let tries = 0; ; tries++) {
      try {
        if ((await call(port, "GET", "/")).status === 200) break
      } catch {}
      if (tries > 600) throw new Error(`${server} did not start`)
      await new Promise((r) => setTimeout(r, 500))
    }
    const setup = await call(port, "POST", "/api/auth/setup", {}, { password: "correct horse battery staple" })
    const headers = { authorization: `Bearer ${JSON.parse(setup.text).token}` }
    const run = async (route, count) => {
      for (let i = 0; i < count; i++) {
        const { status } = await call(port, "GET", route, headers)
        if (status !== 200) throw new Error(`${server} ${route}: ${status}`)
      }
    }
    for (const route of routes) await run(route, warm)
    const result = {}
    let dumps = 0
    const dump = () => {
      control(child.pid, "--dump")
      dumps++
      const text = readFileSync(`${out}.${dumps}`, "utf8")
      return Number(/^summary: (\d+)/m.exec(text)?.[1] ?? /^totals: (\d+)/m.exec(text)[1])
    }
    const counted = async (route, count) => {
      control(child.pid, "--zero")
      const started = performance.now()
      await run(route, count)
      return { instructions: dump(), ms: performance.now() - started }
    }
    const extraMs = []
    for (const route of routes) {
      const one = await counted(route, n)
      const two = await counted(route, 2 * n)
      result[route] = (two.instructions - one.instructions) / n
      extraMs.push(two.ms - one.ms)
    }
    // What the process runs with no request (timers, the scheduler…) over as long as N requests
    // took: counted in the figures above, shown beside them.
    const idleMs = extraMs.reduce((a, b) => a + b, 0) / extraMs.length
    control(child.pid, "--zero")
    await new Promise((r) => setTimeout(r, idleMs))
    result.idle = dump() / n
    return result
  } finally {
    const exited = new Promise((r) => child.once("exit", r))
    child.kill("SIGTERM")
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const results = {}
for (const server of servers) {
  results[server] = await measure(server)
  console.error(
    `${server}: ${routes.map((r) => `${r} ${Math.round(results[server][r] / 1000)}k instructions`).join(" | ")} (idle over as long: ${Math.round(results[server].idle / 1000)}k per request)`,
  )
}
console.log(`\ninstructions per request (thousands), N=${n} after ${warm} warm-up requests per route`)
console.log(
  `| server | ${routes.join(" | ")} | ${routes.length > 1 ? `${routes[1]} / ${routes[0]} |` : ""} idle, as long as a request |`,
)
for (const server of servers) {
  const r = results[server]
  const cells = routes.map((route) =>
    results.floor && server !== "floor"
      ? `${Math.round(r[route] / 1000)} (${(r[route] / results.floor[route]).toFixed(2)}× floor)`
      : `${Math.round(r[route] / 1000)}`,
  )
  console.log(
    `| ${server} | ${cells.join(" | ")} | ${routes.length > 1 ? `${(r[routes[1]] / r[routes[0]]).toFixed(2)} |` : ""} ${Math.round(r.idle / 1000)} |`,
  )
}

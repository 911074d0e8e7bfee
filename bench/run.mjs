#!/usr/bin/env node
// Aide HTTP benchmark: throughput/latency of GET / and GET /api/auth/sessions, cold start and
// idle RSS of the bundled server (packages/server/dist/main.js), on SQLite and, when reachable,
// PostgreSQL. Loopback only. See bench/README.md.
//
//   pnpm bench                      # build, then run everything (~2.5 min)
//   node bench/run.mjs              # run against the existing build
//
// Environment knobs (defaults in brackets):
//   BENCH_DURATION [10]   seconds per measured run       BENCH_RUNS [3]        runs per route
//   BENCH_WARMUP [2]      seconds of warm-up per route   BENCH_CONNECTIONS [20]
//   BENCH_COLD_STARTS [5] spawns for cold start / RSS    BENCH_STORAGE [sqlite,postgres]
//   BENCH_PG_URL [postgres://postgres@127.0.0.1:5432/test]  admin URL; a fresh database is
//                          created from it and dropped afterwards
//   BENCH_ROUTES [/,/api/auth/sessions]  BENCH_NODE_ARGS  extra node flags for the server
//   BENCH_SERVER [packages/server/dist/main.js]  the server bundle to run
// Flags: --update-readme  rewrite the figures block of bench/README.md with this run's table.

import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
// BENCH_SERVER: another build of main.js to measure (e.g. a copy of an older dist/), same flags.
const mainJs = path.resolve(process.env.BENCH_SERVER ?? path.join(root, "packages/server/dist/main.js"))
const resultsDir = path.join(root, "bench/results")
const readmePath = path.join(root, "bench/README.md")

const num = (name, fallback) => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const settings = {
  connections: num("BENCH_CONNECTIONS", 20),
  duration: num("BENCH_DURATION", 10),
  warmup: num("BENCH_WARMUP", 2),
  runs: num("BENCH_RUNS", 3),
  coldStarts: num("BENCH_COLD_STARTS", 5),
  storages: (process.env.BENCH_STORAGE ?? "sqlite,postgres")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  routes: process.env.BENCH_ROUTES ? process.env.BENCH_ROUTES.split(",") : undefined,
  pgAdminUrl: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test",
}
const updateReadme = process.argv.includes("--update-readme")
const HOST = "127.0.0.1"
// Extra node flags for the server, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)
const PASSWORD = "correct horse battery staple"

const log = (...args) => console.error("[bench]", ...args)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

// ---------------------------------------------------------------------------------------------
// Processes

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, HOST, () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** One HTTP request on loopback; resolves { status, body } or rejects (e.g. ECONNREFUSED). */
const request = (port, { method = "GET", path: urlPath = "/", body, headers = {}, timeout = 2000 } = {}) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host: HOST,
        port,
        method,
        path: urlPath,
        agent: false,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
        timeout,
      },
      (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let parsed = text
          try {
            parsed = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode, body: parsed })
        })
      },
    )
    req.on("timeout", () => req.destroy(new Error("timeout")))
    req.on("error", reject)
    req.end(payload)
  })

/** User + system CPU time of a process in milliseconds (clock ticks of /proc/<pid>/stat). */
const cpuTimeMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
}
const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

const readRssMiB = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  return match ? Number(match[1]) / 1024 : Number.NaN
}

/**
 * Spawns the bundled server on a free port with a fresh data directory and waits for the first
 * 200 on GET /. Returns the process handle, the port and the cold start in milliseconds.
 */
const startServer = async ({ databaseUrl, dataDir: existingDataDir } = {}) => {
  const port = await freePort()
  const dataDir = existingDataDir ?? mkdtempSync(path.join(os.tmpdir(), "aide-bench-"))
  const env = {
    ...process.env,
    PORT: String(port),
    HOST,
    AIDE_DATA_DIR: dataDir,
    AIDE_LOG_LEVEL: process.env.AIDE_LOG_LEVEL ?? "Warning",
    NODE_ENV: "production",
  }
  delete env.DATABASE_URL
  if (databaseUrl) env.DATABASE_URL = databaseUrl
  const started = process.hrtime.bigint()
  const child = spawn(process.execPath, [...nodeArgs, mainJs], { env, stdio: ["ignore", "pipe", "pipe"] })
  // Logs (JSON on stdout) are kept only to explain a failed start.
  let stderr = ""
  const keep = (chunk) => {
    stderr += chunk
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000)
  }
  child.stdout.on("data", keep)
  child.stderr.on("data", keep)
  let exited = null
  child.on("exit", (code, signal) => {
    exited = { code, signal }
  })
  const deadline = Date.now() + 15_000
  for (;;) {
    if (exited) throw new Error(`server exited early (${JSON.stringify(exited)}):\n${stderr}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`server did not answer GET / within 15 s:\n${stderr}`)
    }
    try {
      const response = await request(port, { timeout: 1000 })
      if (response.status === 200) break
    } catch {}
    await sleep(5)
  }
  const coldStartMs = Number(process.hrtime.bigint() - started) / 1e6
  // CPU the process spent to get there: steadier than wall time on a shared machine.
  const coldStartCpuMs = cpuTimeMs(child.pid)
  const stop = async () => {
    if (!exited) {
      const done = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
      await done
      clearTimeout(timer)
    }
    if (existingDataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
  }
  return { child, port, coldStartMs, coldStartCpuMs, stop }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a fresh database per bench run, through the `pg` driver the server bundles with.

const loadPg = () => {
  const fromSqlPg = createRequire(
    createRequire(path.join(root, "packages/server/package.json")).resolve("@effect/sql-pg/package.json"),
  )
  return fromSqlPg("pg")
}

const pgAdmin = async (statement) => {
  const pg = loadPg()
  const client = new pg.Client({ connectionString: settings.pgAdminUrl, connectionTimeoutMillis: 2000 })
  client.on("error", () => {})
  await client.connect()
  try {
    return await client.query(statement)
  } finally {
    await client.end()
  }
}

const createPgDatabase = async () => {
  try {
    await pgAdmin("SELECT 1")
  } catch (error) {
    log(`PostgreSQL at ${settings.pgAdminUrl} not reachable (${error.message}): skipped`)
    return undefined
  }
  const name = `aide_bench_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await pgAdmin(`CREATE DATABASE ${name}`)
  const url = new URL(settings.pgAdminUrl)
  url.pathname = `/${name}`
  return { name, url: url.toString(), drop: () => pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

// ---------------------------------------------------------------------------------------------
// Load

const cannon = (port, urlPath, headers, duration) =>
  autocannon({
    url: `http://${HOST}:${port}${urlPath}`,
    connections: settings.connections,
    duration,
    headers,
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  })

const measureRoute = async (server, route) => {
  const { port, child } = server
  await cannon(port, route.path, route.headers, settings.warmup)
  const runs = []
  for (let i = 0; i < settings.runs; i++) {
    const cpuBefore = cpuTimeMs(child.pid)
    const result = await cannon(port, route.path, route.headers, settings.duration)
    const cpuMs = cpuTimeMs(child.pid) - cpuBefore
    runs.push({
      // Server CPU per request: steadier than req/s when other processes share the machine.
      cpuUsPerReq: (cpuMs * 1000) / Math.max(1, result.requests.total),
      reqPerSec: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      // e.g. { "200": { count: 41234 } }: which statuses the non-2xx were.
      statusCodes: result.statusCodeStats,
      total: result.requests.total,
    })
    log(
      `  ${route.name} run ${i + 1}: ${Math.round(result.requests.average)} req/s, ${runs.at(-1).cpuUsPerReq.toFixed(0)} µs CPU/req, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors}, non2xx ${result.non2xx}`,
    )
  }
  return {
    route: route.name,
    reqPerSec: median(runs.map((r) => r.reqPerSec)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpuUsPerReq: median(runs.map((r) => r.cpuUsPerReq)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    runs,
  }
}

const benchStorage = async (storage) => {
  let database
  if (storage === "postgres") {
    database = await createPgDatabase()
    if (!database) return undefined
  } else if (storage !== "sqlite") {
    throw new Error(`unknown storage ${storage}`)
  }
  try {
    // One data directory (and database) for every spawn: the first start creates and migrates
    // the database and generates the signing secret; the restarts after it are the cold start
    // reported (median), as a server is usually restarted on existing data.
    log(`${storage}: first start + ${settings.coldStarts} restarts`)
    const coldDataDir = mkdtempSync(path.join(os.tmpdir(), "aide-bench-cold-"))
    const coldStarts = []
    const coldStartCpu = []
    const idleRss = []
    let firstStart
    try {
      for (let i = 0; i <= settings.coldStarts; i++) {
        const server = await startServer({ databaseUrl: database?.url, dataDir: coldDataDir })
        try {
          await sleep(1000)
          const rss = readRssMiB(server.child.pid)
          if (i === 0) {
            firstStart = { ms: server.coldStartMs, cpuMs: server.coldStartCpuMs, rssMiB: rss }
            continue
          }
          idleRss.push(rss)
          coldStarts.push(server.coldStartMs)
          coldStartCpu.push(server.coldStartCpuMs)
        } finally {
          await server.stop()
        }
      }
    } finally {
      rmSync(coldDataDir, { recursive: true, force: true })
    }
    log(
      `  first start ${firstStart.ms.toFixed(0)} ms (CPU ${firstStart.cpuMs.toFixed(0)} ms); restarts ${coldStarts.map((ms) => ms.toFixed(0)).join(", ")} ms (CPU ${coldStartCpu.map((ms) => ms.toFixed(0)).join(", ")} ms); idle RSS ${idleRss.map((m) => m.toFixed(1)).join(", ")} MiB`,
    )

    const server = await startServer({ databaseUrl: database?.url })
    try {
      // PostgreSQL keeps its rows between spawns; the database is fresh, so setup happens once.
      const setup = await request(server.port, {
        method: "POST",
        path: "/api/auth/setup",
        body: { password: PASSWORD },
      })
      let token
      if (setup.status === 201) token = setup.body.token
      else {
        const login = await request(server.port, {
          method: "POST",
          path: "/api/auth/login",
          body: { password: PASSWORD },
        })
        if (login.status !== 200)
          throw new Error(`setup ${setup.status} / login ${login.status}: ${JSON.stringify(login.body)}`)
        token = login.body.token
      }
      const auth = { authorization: `Bearer ${token}` }
      const check = await request(server.port, { path: "/api/auth/sessions", headers: auth })
      if (check.status !== 200) throw new Error(`GET /api/auth/sessions → ${check.status}`)
      const routes = [
        { name: "GET /", path: "/", headers: {} },
        { name: "GET /api/auth/sessions", path: "/api/auth/sessions", headers: auth },
      ].filter((route) => settings.routes === undefined || settings.routes.includes(route.path))
      const results = []
      for (const route of routes) {
        log(`${storage}: ${route.name}`)
        results.push(await measureRoute(server, route))
      }
      const loadedRss = readRssMiB(server.child.pid)
      return {
        storage,
        coldStartMs: median(coldStarts),
        coldStartsMs: coldStarts,
        firstStart,
        coldStartCpuMs: median(coldStartCpu),
        idleRssMiB: median(idleRss),
        idleRssSamplesMiB: idleRss,
        rssAfterLoadMiB: loadedRss,
        routes: results,
      }
    } finally {
      await server.stop()
    }
  } finally {
    if (database) await database.drop().catch((error) => log(`dropping ${database.name} failed: ${error.message}`))
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (n, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const table = (results) => {
  const lines = [
    "| storage | route | req/s | p50 (ms) | p99 (ms) | server CPU/req (µs) | errors / non-2xx |",
    "|---|---|---:|---:|---:|---:|---:|",
  ]
  for (const r of results) {
    for (const route of r.routes) {
      lines.push(
        `| ${r.storage} | \`${route.route}\` | ${fmt(route.reqPerSec)} | ${route.p50} | ${route.p99} | ${fmt(route.cpuUsPerReq)} | ${route.errors} / ${route.non2xx} |`,
      )
    }
  }
  lines.push(
    "",
    "| storage | cold start (spawn → first 200 on `GET /`, restart) | its CPU time | first start (new data dir) | idle RSS after start | RSS after load |",
    "|---|---:|---:|---:|---:|---:|",
  )
  for (const r of results) {
    lines.push(
      `| ${r.storage} | ${fmt(r.coldStartMs)} ms | ${fmt(r.coldStartCpuMs)} ms | ${fmt(r.firstStart.ms)} ms | ${fmt(r.idleRssMiB, 1)} MiB | ${fmt(r.rssAfterLoadMiB, 1)} MiB |`,
    )
  }
  return lines.join("\n")
}

const gitCommit = () => {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "packages"], { cwd: root, encoding: "utf8" }).trim() !== ""
    return dirty ? `${commit}+dirty` : commit
  } catch {
    return "unknown"
  }
}

const main = async () => {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} missing: run \`pnpm build\` (or \`pnpm bench\`)`)
  const startedAt = new Date()
  log(
    `node ${process.version}, ${os.cpus().length} CPUs, ${settings.connections} connections, ${settings.runs}×${settings.duration}s after ${settings.warmup}s warm-up`,
  )
  const results = []
  for (const storage of settings.storages) {
    const result = await benchStorage(storage)
    if (result) results.push(result)
  }
  const markdown = table(results)
  console.log(markdown)
  const report = {
    startedAt: startedAt.toISOString(),
    durationSeconds: (Date.now() - startedAt.getTime()) / 1000,
    commit: gitCommit(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    server: path.relative(root, mainJs),
    settings: { ...settings, pgAdminUrl: settings.storages.includes("postgres") ? settings.pgAdminUrl : undefined },
    results,
  }
  mkdirSync(resultsDir, { recursive: true })
  const file = path.join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, "-")}.json`)
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
  log(`wrote ${path.relative(root, file)} (${report.durationSeconds.toFixed(0)} s)`)
  if (updateReadme && existsSync(readmePath)) {
    const readme = readFileSync(readmePath, "utf8")
    const block = `<!-- figures:start -->\n${report.startedAt.slice(0, 10)}, commit ${report.commit}, node ${report.node}, ${report.cpus} CPUs (${report.cpuModel}):\n\n${markdown}\n<!-- figures:end -->`
    writeFileSync(readmePath, readme.replace(/<!-- figures:start -->[\s\S]*<!-- figures:end -->/, block))
    log("updated bench/README.md")
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

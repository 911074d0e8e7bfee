#!/usr/bin/env node
// `GET /api/threads` of bench/year.mjs (first page, last page) on the year's PostgreSQL database
// and on an empty one holding 8 threads (the empty side of year.mjs after its chats), for two or
// more server builds, round by round in one run: a machine shared with other work drifts too much
// between two separate year.mjs runs for a change of a millisecond to show. The year must be
// seeded first (`node bench/year.mjs --scale 0.1 --storage postgres --seed-only`).
//
//   node bench/year-threads-ab.mjs --pg-db aide_year_0_1 --dir <tmp>/aide-year-pg-0.1 \
//     base=/tmp/aide-ab/base/main.js after=packages/server/dist/main.js
//
// Flags: --pg-url [postgres://postgres@127.0.0.1:5432/postgres] (or BENCH_PG_URL)  --rounds [3]
//        --samples [60] requests per figure (then 200 more for the server's CPU per request)
// Prints p50 / p95 and CPU per request (the server's, its PostgreSQL backends') of each build,
// the median over rounds; writes bench/results/year-threads-ab-<timestamp>.json.

import { existsSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import {
  cpuMs,
  log,
  median,
  PASSWORD,
  percentile,
  removeDir,
  request,
  round,
  setUp,
  startServer,
  tmpDir,
  writeResults,
} from "./harness.mjs"
import { emptyDatabase, pgQuery, yearDatabase } from "./year-pg.mjs"
import { seedThreads } from "./year-seed.mjs"

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "pg-db": { type: "string", default: "aide_year_0_1" },
    "pg-url": { type: "string", default: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    dir: { type: "string", default: path.join(os.tmpdir(), "aide-year-pg-0.1") },
    rounds: { type: "string", default: "3" },
    samples: { type: "string", default: "60" },
  },
})
const builds = positionals.map((spec) => {
  const [name, main] = spec.split("=")
  if (!name || !main) throw new Error(`a build is name=path/to/main.js: ${spec}`)
  return { name, main: path.resolve(main) }
})
if (builds.length < 2) throw new Error("two builds or more to compare")
const samples = Number(flags.samples)

const found = await pgQuery(flags["pg-url"], `SELECT 1 FROM pg_database WHERE datname = '${flags["pg-db"]}'`)
if (found.rowCount === 0)
  throw new Error(`${flags["pg-db"]}: not seeded (bench/year.mjs --storage postgres --seed-only)`)
const yearDb = await yearDatabase(flags["pg-url"], 1, flags["pg-db"])

/** Login on a directory set up before (the year), setup on a fresh one. */
const token = async (url) => {
  const login = await request(url, { method: "POST", path: "/api/auth/login", body: { password: PASSWORD } })
  return login.status === 200 ? login.body.token : setUp(url)
}

/** The server's PostgreSQL backends (its pool's connections to `databaseUrl`). */
const backends = async (databaseUrl) => {
  const name = new URL(databaseUrl).pathname.slice(1)
  const rows = await pgQuery(
    flags["pg-url"],
    `SELECT pid FROM pg_stat_activity WHERE datname = '${name}' AND application_name = 'aide' AND pid <> pg_backend_pid()`,
  )
  return rows.rows.map((row) => row.pid)
}

/**
 * p50 / p95 of `samples` GETs after 5 warm-ups, then over 200 more the CPU per request of the
 * server and of its PostgreSQL backends (/proc: the database runs on this machine).
 */
const timeGets = async (server, auth, urlPath, databaseUrl) => {
  const times = []
  let body
  for (let i = 0; i < samples + 5; i++) {
    const res = await request(server.url, { path: urlPath, token: auth })
    if (res.status !== 200) throw new Error(`${urlPath}: ${res.status}`)
    if (i >= 5) times.push(res.ms)
    body = res.body
  }
  const pids = await backends(databaseUrl)
  // A backend the pool closed meanwhile (its idle timeout) is left out: it served none of these.
  const dbCpu = () => new Map(pids.flatMap((pid) => (existsSync(`/proc/${pid}`) ? [[pid, cpuMs(pid)]] : [])))
  const cpu0 = cpuMs(server.pid)
  const db0 = dbCpu()
  for (let i = 0; i < 200; i++) await request(server.url, { path: urlPath, token: auth })
  const db1 = dbCpu()
  const dbUsed = [...db1].reduce((sum, [pid, ms]) => sum + ms - (db0.get(pid) ?? ms), 0)
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    cpuMs: (cpuMs(server.pid) - cpu0) / 200,
    dbCpuMs: dbUsed / 200,
    body,
  }
}

/** First and last page of the list on one build and one database. */
const measure = async (build, dataDir, databaseUrl) => {
  const server = await startServer({ dataDir, main: build.main, env: { DATABASE_URL: databaseUrl } })
  try {
    const auth = await token(server.url)
    const first = await timeGets(server, auth, "/api/threads", databaseUrl)
    const lastPage = Math.max(0, Math.ceil(first.body.total / first.body.perPage) - 1)
    const last = await timeGets(server, auth, `/api/threads?page=${lastPage}`, databaseUrl)
    return {
      total: first.body.total,
      lastPage,
      first: { ...first, body: undefined },
      last: { ...last, body: undefined },
    }
  } finally {
    await server.stop()
  }
}

const emptyDir = tmpDir("aide-year-ab-empty-")
const emptyDb = await emptyDatabase(flags["pg-url"])
const results = { settings: { ...flags, builds }, date: new Date().toISOString(), loadavg: [os.loadavg()], rounds: [] }
try {
  await seedThreads(emptyDir, 8, emptyDb.url)
  for (let r = 0; r < Number(flags.rounds); r++) {
    const out = {}
    for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
      out[build.name] = {
        empty: await measure(build, emptyDir, emptyDb.url),
        year: await measure(build, flags.dir, yearDb.url),
      }
      log(`round ${r} ${build.name}: ${JSON.stringify(out[build.name])}`)
    }
    results.rounds.push(out)
    results.loadavg.push(os.loadavg())
  }
} finally {
  removeDir(emptyDir)
  await emptyDb.drop()
}

const med = (name, side, page, key) => median(results.rounds.map((out) => out[name][side][page][key]))
const ms = (v) => `${round(v, 2)} ms`
const { year: y } = results.rounds[0][builds[0].name]
console.log(
  `\n| build | page | empty (8 roots): p50 / p95; CPU server, database | year (${y.total} roots): the same | year / empty |`,
)
console.log("|---|---|---|---|---|")
for (const { name } of builds)
  for (const [page, label] of [
    ["first", "first"],
    ["last", `last (${y.lastPage})`],
  ]) {
    const cell = (side) =>
      `${ms(med(name, side, page, "p50"))} / ${ms(med(name, side, page, "p95"))}; CPU ${ms(med(name, side, page, "cpuMs"))}, ${ms(med(name, side, page, "dbCpuMs"))}`
    const ratio = (key) => round(med(name, "year", page, key) / med(name, "empty", page, key), 2)
    console.log(
      `| ${name} | ${label} | ${cell("empty")} | ${cell("year")} | ${ratio("p50")}× (CPU ${ratio("cpuMs")}×, database ${ratio("dbCpuMs")}×) |`,
    )
  }
console.log(`\nload average ${results.loadavg.map((l) => l.map((v) => round(v, 1)).join(" ")).join(" → ")}`)
writeResults("year-threads-ab", results)

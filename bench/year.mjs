#!/usr/bin/env node
// A year of use (issue 38): the same figures on an empty data directory and on one seeded with
// what an active owner has after a year (bench/year-seed.mjs: 20,000 threads, 1,000,000
// messages with 2,000-message threads and branches, 50,000 observations, 5,000 inbox messages,
// 200 scheduled tasks and their run ledger, at --scale 1), on SQLite or PostgreSQL
// (--storage postgres: the year in the database `aide_year_<scale>`, kept and reused; the empty
// side in a fresh database dropped after), against the bundled server
// (packages/server/dist/main.js) and the FakeModelServer of @aide/testing, loopback only:
//   - cold start to the first `GET /` answered, RSS after it;
//   - `GET /api/threads` (first page, last page; and a full first page of 50 against an empty
//     directory holding 50 threads), `GET /api/threads/:id` (a chat's thread, and a 2,000-message
//     one, per message), `GET /api/inbox`, `GET /api/schedule` (per item): p50 / p95;
//   - chat, first text delta: a new thread each time, and the 2,000-message thread (the
//     messages the model was sent counted);
//   - in-process through the kernel, the server stopped: recall (`Recall.forTurn`) and the
//     scheduler's due-check pass (`DueRunner.runDue`, the empty side given the year's 200 tasks);
//   - `aide doctor` (the CLI, logged in nowhere), and the backup: `aide backup` on SQLite, the
//     `pg_dump -Fc` it prints on PostgreSQL.
// The year is seeded once per --dir (and database) and reused (a marker file, year-seed.json).
//
//   npx -y pnpm@10.20.0 build && node bench/year.mjs --scale 0.1 [--storage postgres]
//
// Flags: --scale [1]  --storage [sqlite] | postgres  --pg-url [postgres://postgres@127.0.0.1:5432/postgres]
//        (or BENCH_PG_URL: the admin URL databases are created from)  --dir [<tmp>/aide-year-<scale>,
//        aide-year-pg-<scale> for PostgreSQL] (kept)  --pg-db [aide_year_<scale>] the year's database
//        --samples [60] requests per figure
//        --chats [10] chats per kind  --starts [3] cold starts per directory  --seed-only
// Prints a markdown table; writes bench/results/year-<storage>-<timestamp>.json.

import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, statSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import {
  cpuMs,
  log,
  median,
  PASSWORD,
  percentile,
  removeDir,
  request,
  root,
  round,
  rssMiB,
  setUp,
  sleep,
  sse,
  startServer,
  table,
  tmpDir,
  writeResults,
} from "./harness.mjs"
import { emptyDatabase, pgQuery, yearDatabase } from "./year-pg.mjs"
import { recallTimes } from "./year-recall.mjs"
import { schedulerPassTimes } from "./year-scheduler.mjs"
import { seedThreads, seedYear, yearTasks } from "./year-seed.mjs"

const { values: flags } = parseArgs({
  options: {
    scale: { type: "string", default: "1" },
    dir: { type: "string" },
    samples: { type: "string", default: "60" },
    chats: { type: "string", default: "10" },
    starts: { type: "string", default: "3" },
    storage: { type: "string", default: "sqlite" },
    "pg-url": { type: "string", default: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    "pg-db": { type: "string" },
    "seed-only": { type: "boolean", default: false },
  },
})
const scale = Number(flags.scale)
if (!(scale > 0 && scale <= 1)) throw new Error("--scale: a number in (0, 1]")
if (!["sqlite", "postgres"].includes(flags.storage)) throw new Error("--storage: sqlite or postgres")
const postgres = flags.storage === "postgres"
const settings = {
  scale,
  storage: flags.storage,
  samples: Number(flags.samples),
  chats: Number(flags.chats),
  starts: Number(flags.starts),
  dir: flags.dir ?? path.join(os.tmpdir(), postgres ? `aide-year-pg-${scale}` : `aide-year-${scale}`),
}
const { FakeModelServer } = await import(pathToFileURL(path.join(root, "packages/testing/dist/index.js")).href)

const results = { settings, node: process.version, date: new Date().toISOString(), loadavg: [os.loadavg()] }

/** Setup on a fresh directory, login on a seeded one that a previous run set up. */
const token = async (url) => {
  const login = await request(url, { method: "POST", path: "/api/auth/login", body: { password: PASSWORD } })
  if (login.status === 200) {
    const patched = await request(url, {
      method: "PATCH",
      path: "/api/config",
      token: login.body.token,
      body: { models: { operator: { provider: "openai-compatible", model: "fake" } } },
    })
    if (patched.status !== 200) throw new Error(`config: ${patched.status}`)
    return login.body.token
  }
  return setUp(url)
}

const stats = (values) => ({ p50: percentile(values, 50), p95: percentile(values, 95), n: values.length })

/**
 * p50 / p95 of `samples` GETs, then the server's CPU time per request over `cpuRounds` more
 * (`/proc/<pid>/stat`, 10 ms ticks: steadier than latency on a loaded machine).
 */
const timeGets = async (server, auth, urlPath, cpuRounds = 200) => {
  const times = []
  let body
  for (let i = 0; i < settings.samples + 5; i++) {
    const res = await request(server.url, { path: urlPath, token: auth })
    if (res.status !== 200) throw new Error(`${urlPath}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`)
    if (i >= 5) times.push(res.ms)
    body = res.body
  }
  const cpu0 = cpuMs(server.pid)
  for (let i = 0; i < cpuRounds; i++) await request(server.url, { path: urlPath, token: auth })
  return { ...stats(times), cpuMs: (cpuMs(server.pid) - cpu0) / cpuRounds, body }
}

/** Waits (≤ 30 s) until `pid` used under 2.5 ms of CPU in each of two 250 ms windows; answers how long. */
const settle = async (pid) => {
  const t0 = performance.now()
  let quiet = 0
  let last = cpuMs(pid)
  while (quiet < 2 && performance.now() - t0 < 30_000) {
    await sleep(250)
    const now = cpuMs(pid)
    quiet = now - last < 2.5 ? quiet + 1 : 0
    last = now
  }
  return performance.now() - t0
}

/** One chat; the time to its first text delta and the thread it went to. */
const chatOnce = async (url, auth, text, threadId) => {
  let first = Number.NaN
  let thread = threadId
  const started = performance.now()
  const response = await sse(`${url}/api/chat`, {
    headers: { authorization: `Bearer ${auth}` },
    body: { parts: [{ type: "text", text }], ...(threadId ? { threadId } : {}) },
    onEvent: (data, now) => {
      if (data === "[DONE]") return
      const chunk = JSON.parse(data)
      if (chunk.type === "text-delta" && Number.isNaN(first)) first = now
      if (chunk.type === "start" && chunk.messageMetadata?.threadId) thread = chunk.messageMetadata.threadId
    },
  })
  if (response.status !== 200) throw new Error(`chat: ${response.status}`)
  return { ttft: first - started, threadId: thread ?? response.headers["x-thread-id"] }
}

const isMemoryCall = (req) => /memory (observer|reflector)|title/i.test(JSON.stringify(req.body?.messages?.[0] ?? ""))

/** The list's first page alone (the empty directory with a full page of threads). */
const measureList = async (label, dataDir, databaseUrl) => {
  const server = await startServer({ dataDir, env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} })
  try {
    const auth = await setUp(server.url)
    const list = await timeGets(server, auth, "/api/threads")
    const out = { label, list: { ...list, total: list.body.total, entries: list.body.threads.length, body: undefined } }
    log(`${label}: ${JSON.stringify(out)}`)
    return out
  } finally {
    await server.stop()
  }
}

/** `aide doctor` on the directory, the server stopped and the CLI logged in nowhere (median). */
const doctorTime = (dataDir, databaseUrl) => {
  const cliConfig = tmpDir("aide-year-cli-")
  const times = []
  try {
    for (let i = 0; i < settings.starts + 1; i++) {
      const t0 = performance.now()
      try {
        execFileSync(
          process.execPath,
          [path.join(root, "packages/cli/bin/aide.mjs"), "doctor", "--data-dir", dataDir, "--port", "1", "--json"],
          {
            stdio: "ignore",
            env: {
              ...process.env,
              AIDE_CLI_CONFIG: path.join(cliConfig, "cli.json"),
              DATABASE_URL: databaseUrl ?? "",
            },
          },
        )
      } catch {
        // Exit 1: a check failed (no provider key in this shell, the port): the time is what counts.
      }
      if (i > 0) times.push(performance.now() - t0)
    }
  } finally {
    removeDir(cliConfig)
  }
  return { ms: median(times), n: times.length }
}

/** The backup: `aide backup` on SQLite; on PostgreSQL the `pg_dump` it tells the owner to run. */
const backupTime = (dataDir, databaseUrl) => {
  const file = path.join(tmpDir("aide-year-backup-"), "backup.db")
  const t0 = performance.now()
  if (databaseUrl) execFileSync("pg_dump", ["--format=custom", `--file=${file}`, databaseUrl], { stdio: "ignore" })
  else
    execFileSync(
      process.execPath,
      [path.join(root, "packages/cli/bin/aide.mjs"), "backup", file, "--data-dir", dataDir],
      { stdio: "ignore" },
    )
  const out = {
    ms: performance.now() - t0,
    bytes: statSync(file).size,
    how: databaseUrl ? "pg_dump -Fc" : "aide backup",
  }
  removeDir(path.dirname(file))
  return out
}

/** Every figure on one data directory (and database); `longThreadId` only for the year. */
const measure = async (label, dataDir, databaseUrl, longThreadId, tasks) => {
  const fake = await FakeModelServer.start()
  const env = { OPENAI_COMPATIBLE_BASE_URL: fake.url, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }
  const out = { label }
  try {
    // Cold starts: spawn until the first `GET /` is answered; RSS right after.
    const starts = []
    const rss = []
    for (let i = 0; i < settings.starts; i++) {
      const t0 = performance.now()
      const server = await startServer({ dataDir, env })
      const res = await request(server.url, { path: "/" })
      starts.push(performance.now() - t0)
      if (res.status !== 200) throw new Error(`GET /: ${res.status}`)
      rss.push(rssMiB(server.pid))
      if (i < settings.starts - 1) await server.stop()
      else out.server = server
    }
    out.startMs = median(starts)
    out.rssMiB = median(rss)
    const { url } = out.server
    const auth = await token(url)

    // Chats first, so the request figures below see the chat-made thread too.
    const newThread = []
    const longThread = []
    let sentToModel = null
    let chatThread
    for (let i = 0; i < settings.chats + 2; i++) {
      const fresh = await chatOnce(url, auth, `A new question ${i}: what should I pack for the trip?`)
      chatThread = fresh.threadId
      if (i >= 2) newThread.push(fresh.ttft)
      if (longThreadId) {
        const before = fake.requests.length
        const long = await chatOnce(url, auth, `And one more thing ${i}: the budget?`, longThreadId)
        if (i >= 2) longThread.push(long.ttft)
        const call = fake.requests.slice(before).find((req) => !isMemoryCall(req))
        sentToModel = call?.body?.messages?.length ?? sentToModel
      }
    }
    out.chatNew = stats(newThread)
    if (longThreadId) {
      out.chatLong = stats(longThread)
      out.longMessagesSentToModel = sentToModel
    }

    // The chats leave background work (memory's observer, titles): the GETs below wait for the
    // server to go quiet, and how long that took is a figure of its own.
    out.settleMs = await settle(out.server.pid)
    const list = await timeGets(out.server, auth, "/api/threads")
    out.list = { ...list, total: list.body.total, body: undefined }
    const lastPage = Math.max(0, Math.ceil(list.body.total / list.body.perPage) - 1)
    out.lastPage = {
      ...(await timeGets(out.server, auth, `/api/threads?page=${lastPage}`)),
      page: lastPage,
      body: undefined,
    }
    out.chatDetail = { ...(await timeGets(out.server, auth, `/api/threads/${chatThread}`)), body: undefined }
    if (longThreadId) {
      const detail = await timeGets(out.server, auth, `/api/threads/${longThreadId}`, 30)
      out.longDetail = { ...detail, messages: detail.body.messages.length, body: undefined }
    }
    const inbox = await timeGets(out.server, auth, "/api/inbox")
    out.inbox = { ...inbox, messages: inbox.body.messages.length, body: undefined }
    const schedule = await timeGets(out.server, auth, "/api/schedule")
    out.schedule = { ...schedule, tasks: schedule.body.tasks.length, body: undefined }
  } finally {
    await out.server?.stop()
    out.server = undefined
    await fake.close()
  }
  out.recall = await recallTimes(dataDir, Math.max(50, settings.samples), databaseUrl)
  out.scheduler = await schedulerPassTimes(dataDir, Math.max(20, Math.round(settings.samples / 2)), databaseUrl, tasks)
  out.doctor = doctorTime(dataDir, databaseUrl)
  out.backup = backupTime(dataDir, databaseUrl)
  log(`${label}: ${JSON.stringify(out)}`)
  return out
}

mkdirSync(settings.dir, { recursive: true })
const yearDb = postgres ? await yearDatabase(flags["pg-url"], scale, flags["pg-db"]) : undefined
// A new database is an unseeded one, whatever the directory's marker says.
if (yearDb?.created) rmSync(path.join(settings.dir, "year-seed.json"), { force: true })
const seeded = await seedYear(settings.dir, scale, yearDb?.url)
// The state autovacuum keeps a production database in: this server runs with autovacuum off, and
// the seed updates a message's thread row twice (149,181 dead rows in `threads` at scale 0.1,
// its file 18 MB for 2,228 rows). A database living with autovacuum reuses that space as it
// goes, so `threads` is compacted (416 kB) and the rest vacuumed, before anything is measured.
if (yearDb !== undefined) await pgQuery(yearDb.url, "VACUUM (FULL, ANALYZE) threads", "VACUUM (ANALYZE)")
if (flags["seed-only"]) process.exit(0)
results.seeded = seeded
const emptyDir = tmpDir("aide-year-empty-")
const pageDir = tmpDir("aide-year-page-")
const emptyDb = postgres ? await emptyDatabase(flags["pg-url"]) : undefined
const pageDb = postgres ? await emptyDatabase(flags["pg-url"]) : undefined
try {
  // The empty side gets the year's 200 tasks for the scheduler's pass (after its HTTP figures).
  results.empty = await measure("empty", emptyDir, emptyDb?.url, undefined, yearTasks(seeded.sizes.tasks))
  results.loadavg.push(os.loadavg())
  await seedThreads(pageDir, 50, pageDb?.url)
  results.page = await measureList("empty + 50 threads", pageDir, pageDb?.url)
  results.year = await measure("year", settings.dir, yearDb?.url, seeded.longThreadIds[0])
  results.loadavg.push(os.loadavg())
} finally {
  removeDir(emptyDir)
  removeDir(pageDir)
  await emptyDb?.drop()
  await pageDb?.drop()
}

const { empty, page, year } = results
const ms = (v) => `${round(v, 1)} ms`
const pair = (s) => `${ms(s.p50)} / ${ms(s.p95)}`
const ratio = (a, b) => `${round(a / b, 2)}×`
const perItem = (s, items) => (items > 0 ? ` (${round((s.p50 / items) * 1000, 1)} µs each)` : "")
const within = "≤ 1.5× empty"
/** CPU per item: what the year's answer costs beyond the empty one's, over its items. */
const perCpu = (year, empty, items) => `${round(((year.cpuMs - empty.cpuMs) / items) * 1000, 1)} µs CPU`
const cpu = (s) => (s.cpuMs === undefined ? "" : `; CPU ${round(s.cpuMs, 2)} ms`)
const row = (name, key, target = within) => [
  name,
  `${pair(empty[key])}${cpu(empty[key])}`,
  `${pair(year[key])}${cpu(year[key])}`,
  ratio(year[key].p50, empty[key].p50) +
    (empty[key].cpuMs > 0 ? ` (CPU ${ratio(year[key].cpuMs, empty[key].cpuMs)})` : ""),
  target,
]
const rows = [
  [
    "cold start to first `GET /` (median)",
    ms(empty.startMs),
    ms(year.startMs),
    ratio(year.startMs, empty.startMs),
    "< 1.5 s",
  ],
  [
    "RSS after start",
    `${round(empty.rssMiB, 1)} MiB`,
    `${round(year.rssMiB, 1)} MiB`,
    ratio(year.rssMiB, empty.rssMiB),
    "",
  ],
  row(`GET /api/threads, first page (${empty.list.total} / ${year.list.total} roots)`, "list"),
  [
    "GET /api/threads, first page, 50 entries each: an empty directory holding 50 threads, vs the year's",
    `${pair(page.list)}${cpu(page.list)}`,
    `${pair(year.list)}${cpu(year.list)}`,
    `${ratio(year.list.p50, page.list.p50)} (CPU ${ratio(year.list.cpuMs, page.list.cpuMs)})`,
    within,
  ],
  row(`GET /api/threads?page=N, last page (${empty.lastPage.page} / ${year.lastPage.page})`, "lastPage"),
  row("GET /api/threads/:id, a chat's thread", "chatDetail"),
  [
    `GET /api/threads/:id, ${year.longDetail.messages}-message thread (per message)`,
    "",
    `${pair(year.longDetail)}${perItem(year.longDetail, year.longDetail.messages)}${cpu(year.longDetail)}`,
    "",
    "(SPEC: the full history)",
  ],
  [
    `GET /api/inbox (${empty.inbox.messages} / ${year.inbox.messages} messages)`,
    `${pair(empty.inbox)}${cpu(empty.inbox)}`,
    `${pair(year.inbox)}${cpu(year.inbox)}, ${perCpu(year.inbox, empty.inbox, year.inbox.messages)} a message`,
    `${ratio(year.inbox.p50, empty.inbox.p50)} (CPU ${ratio(year.inbox.cpuMs, empty.inbox.cpuMs)})`,
    "(SPEC: no paging)",
  ],
  [
    `GET /api/schedule (${empty.schedule.tasks} / ${year.schedule.tasks} tasks)`,
    `${pair(empty.schedule)}${cpu(empty.schedule)}`,
    `${pair(year.schedule)}${cpu(year.schedule)}, ${perCpu(year.schedule, empty.schedule, year.schedule.tasks)} a task`,
    `${ratio(year.schedule.p50, empty.schedule.p50)} (CPU ${ratio(year.schedule.cpuMs, empty.schedule.cpuMs)})`,
    "(SPEC: no paging)",
  ],
  row("chat, first text delta, new thread", "chatNew"),
  [
    "after the chats, until the server is quiet (CPU < 1 % for 0.5 s; the GETs wait for it)",
    ms(empty.settleMs),
    ms(year.settleMs),
    ratio(year.settleMs, empty.settleMs),
    "",
  ],
  [
    `chat, first text delta, the ${seeded.sizes.longLength}-message thread (${year.longMessagesSentToModel} messages sent to the model)`,
    pair(empty.chatNew),
    pair(year.chatLong),
    ratio(year.chatLong.p50, empty.chatNew.p50),
    within,
  ],
  row("recall, `Recall.forTurn` (in-process)", "recall"),
  row(
    `scheduler due-check pass, \`DueRunner.runDue\` (${empty.scheduler.tasks} / ${year.scheduler.tasks} tasks, nothing due)`,
    "scheduler",
  ),
  ["`aide doctor` (median)", ms(empty.doctor.ms), ms(year.doctor.ms), ratio(year.doctor.ms, empty.doctor.ms), ""],
  [
    `backup (\`${year.backup.how}\`)`,
    `${ms(empty.backup.ms)} (${round(empty.backup.bytes / 2 ** 20, 1)} MiB)`,
    `${ms(year.backup.ms)} (${round(year.backup.bytes / 2 ** 20, 1)} MiB)`,
    ratio(year.backup.ms, empty.backup.ms),
    postgres ? "" : "< 30 s",
  ],
]
results.rows = rows
results.title = `A year of use at scale ${scale} (${seeded.messages.toLocaleString("en")} messages, ${seeded.sizes.threads.toLocaleString("en")} threads, ${seeded.observations.toLocaleString("en")} observations, ${seeded.sizes.inbox} inbox messages, ${seeded.sizes.tasks} tasks × ${seeded.sizes.runsPerTask} runs; seeded in ${seeded.seconds} s), ${postgres ? "PostgreSQL" : "SQLite"}; node ${process.version}, ${os.cpus().length} cores, load ${results.loadavg.map((l) => l[0].toFixed(1)).join(" → ")}`
console.log(`\n${results.title}\n`)
console.log(table(["figure (p50 / p95)", "empty", "year", "year / empty", "target"], rows))
console.log(`\nresults: ${writeResults(`year-${settings.storage}`, results)}`)
process.exit(0)

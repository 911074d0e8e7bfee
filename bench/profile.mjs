#!/usr/bin/env node
// CPU profile of the bundled server under load on one route, summarised by self time.
//
//   node bench/profile.mjs [/api/auth/sessions | /] [seconds]
//
// Writes the raw .cpuprofile into bench/results/profiles/ (open it in Chrome DevTools) and
// prints the top functions and the top source files/packages by self time.

import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const route = process.argv[2] ?? "/api/auth/sessions"
const seconds = Number(process.argv[3] ?? 8)
const profileDir = path.join(root, "bench/results/profiles")
mkdirSync(profileDir, { recursive: true })

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address()
    s.close(() => resolve(port))
  })
})
// PROFILE_DATA_DIR: an existing data directory (a seeded year, bench/year.mjs), kept; its owner's
// password is the bench's.
const dataDir = process.env.PROFILE_DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), "aide-prof-"))
const before = new Set(readdirSync(profileDir))
const child = spawn(
  process.execPath,
  [
    "--cpu-prof",
    `--cpu-prof-dir=${profileDir}`,
    "--cpu-prof-interval=200",
    process.env.PROFILE_SERVER ?? path.join(root, "packages/server/dist/main.js"),
  ],
  {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", AIDE_DATA_DIR: dataDir, AIDE_LOG_LEVEL: "Warning" },
    stdio: "inherit",
  },
)

const call = (method, urlPath, body, headers = {}) =>
  new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        headers: payload ? { ...headers, "content-type": "application/json" } : headers,
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

for (;;) {
  try {
    if ((await call("GET", "/")).status === 200) break
  } catch {}
  await new Promise((r) => setTimeout(r, 20))
}
const password = { password: "correct horse battery staple" }
const login = process.env.PROFILE_DATA_DIR ? await call("POST", "/api/auth/login", password) : undefined
const setup = login?.status === 200 ? login : await call("POST", "/api/auth/setup", password)
const token = JSON.parse(setup.text).token
const headers = { authorization: `Bearer ${token}` }
const run = (duration) =>
  autocannon({ url: `http://127.0.0.1:${port}${route}`, connections: 20, duration, headers, renderProgressBar: false })
await run(2)
const result = await run(seconds)
console.log(
  `${route}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non2xx ${result.non2xx}`,
)
const exited = new Promise((r) => child.once("exit", r))
child.kill("SIGINT")
await exited
if (!process.env.PROFILE_DATA_DIR) rmSync(dataDir, { recursive: true, force: true })

const file = readdirSync(profileDir).find((f) => !before.has(f) && f.endsWith(".cpuprofile"))
if (!file) throw new Error("no profile written")
const profile = JSON.parse(readFileSync(path.join(profileDir, file), "utf8"))
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map()
const deltas = profile.timeDeltas
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (deltas[i] ?? 0))
const total = [...self.values()].reduce((a, b) => a + b, 0)
const fnTotals = new Map()
const fileTotals = new Map()
for (const [id, time] of self) {
  const { callFrame } = byId.get(id)
  const where = callFrame.url ? `${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : "(native)"
  const key = `${callFrame.functionName || "(anonymous)"} ${where}`
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + time)
  const fileKey = callFrame.url
    ? callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/dist\//, "dist/")
    : callFrame.functionName
  fileTotals.set(fileKey, (fileTotals.get(fileKey) ?? 0) + time)
}
// Inclusive time: each sample counts once for every distinct function on its stack.
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const inclusive = new Map()
for (const [id, time] of self) {
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const { callFrame } = byId.get(cur)
    const key = `${callFrame.functionName || "(anonymous)"} ${callFrame.url ? `${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : "(native)"}`
    if (seen.has(key)) continue
    seen.add(key)
    inclusive.set(key, (inclusive.get(key) ?? 0) + time)
  }
}
const top = (map, n) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join("\n")
console.log(
  `\nprofile: ${path.relative(root, path.join(profileDir, file))}\n\ntop functions by self time:\n${top(fnTotals, 45)}\n\nby file:\n${top(fileTotals, 15)}\n\ntop functions by inclusive time:\n${top(inclusive, Number(process.env.PROFILE_INCLUSIVE ?? 80))}`,
)

#!/usr/bin/env node
// Interleaved A/B comparison of server builds, for a machine shared with other work where
// absolute req/s drift: alternate the variants round by round and compare medians of server
// CPU time per request (and req/s).
//
//   node bench/ab.mjs snapshot <name>          # copy packages/server/dist (or $AB_DIST) to /tmp/aide-ab/<name>
//   node bench/ab.mjs <nameA> <nameB> [...]    # compare (env AB_ROUNDS [4], AB_SECONDS [5], AB_CONNECTIONS [20],
//                                              # AB_WARM_SECONDS [1] per route before measuring)
//
// The variant `floor` is bench/request-floor-server.mjs (node:http answering the same two routes,
// no Aide code): `node bench/ab.mjs floor base after` prints each build's CPU per request as a
// multiple of the floor's, measured in the same rounds. `floor-api` and `floor-router` are the
// same answers served by the stack Aide is built on (bench/request-effect-floor-server.mjs:
// @effect/platform's HttpApi, or a plain HttpRouter, on NodeHttpServer): `node bench/ab.mjs floor
// floor-api floor-router base` shows what of a build's multiple is the stack's and what is Aide's.

import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"
import { writeResults } from "./harness.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const base = "/tmp/aide-ab"

if (process.argv[2] === "snapshot") {
  const name = process.argv[3]
  mkdirSync(base, { recursive: true })
  // Externals (better-sqlite3, argon2) resolve through this link, as from packages/server/dist.
  if (!existsSync(path.join(base, "node_modules")))
    symlinkSync(path.join(root, "packages/server/node_modules"), path.join(base, "node_modules"))
  cpSync(path.join(root, "packages/server/package.json"), path.join(base, "package.json"))
  rmSync(path.join(base, name), { recursive: true, force: true })
  cpSync(process.env.AB_DIST ?? path.join(root, "packages/server/dist"), path.join(base, name), { recursive: true })
  console.log(`snapshot ${name}`)
  process.exit(0)
}

const variants = process.argv.slice(2)
const rounds = Number(process.env.AB_ROUNDS ?? 4)
const seconds = Number(process.env.AB_SECONDS ?? 5)
const routes = (process.env.AB_ROUTES ?? "/,/api/auth/sessions").split(",").filter(Boolean)
const ticks = 100

const cpuMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(f[11]) + Number(f[12])) * 1000) / ticks
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
const call = (port, method, urlPath, body) =>
  new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: urlPath,
        agent: false,
        headers: payload ? { "content-type": "application/json" } : {},
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

const measure = async (variant, round) => {
  const port = await freePort()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "aide-ab-"))
  const started = performance.now()
  // `floor-api+57`: the HttpApi floor with 57 more services in its requests' context.
  const [, effectFloor, services] = /^floor-(api|router|fiber)(?:\+(\d+))?$/.exec(variant) ?? []
  const entry =
    variant === "floor"
      ? path.join(root, "bench/request-floor-server.mjs")
      : effectFloor !== undefined
        ? path.join(root, "bench/request-effect-floor-server.mjs")
        : path.join(base, variant, "main.js")
  const child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      AIDE_DATA_DIR: dataDir,
      AIDE_LOG_LEVEL: "Warning",
      ...(effectFloor === undefined ? {} : { EFFECT_FLOOR: effectFloor, EFFECT_FLOOR_SERVICES: services ?? "0" }),
    },
    stdio: ["ignore", "ignore", "inherit"],
  })
  for (;;) {
    try {
      if ((await call(port, "GET", "/")).status === 200) break
    } catch {}
    await new Promise((r) => setTimeout(r, 5))
  }
  const coldMs = performance.now() - started
  const coldCpuMs = cpuMs(child.pid)
  await new Promise((r) => setTimeout(r, 1000))
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024
  const { token } = JSON.parse(
    (await call(port, "POST", "/api/auth/setup", { password: "correct horse battery staple" })).text,
  )
  const out = { cold: { rps: coldMs, us: rss, bad: 0, cpu: coldCpuMs } }
  const optsOf = (route) => ({
    url: `http://127.0.0.1:${port}${route}`,
    connections: Number(process.env.AB_CONNECTIONS ?? 20),
    headers: { authorization: `Bearer ${token}` },
  })
  // Every route warmed before any is measured, and the order alternated by round: the first
  // route measured would otherwise carry the process's late start-up work and JIT alone.
  // AB_WARM_SECONDS: longer on a loaded machine, where a second is too few requests for the JIT.
  for (const route of routes) await autocannon({ ...optsOf(route), duration: Number(process.env.AB_WARM_SECONDS ?? 1) })
  for (const route of round % 2 === 0 ? routes : [...routes].reverse()) {
    const opts = optsOf(route)
    const before = cpuMs(child.pid)
    const r = await autocannon({ ...opts, duration: seconds })
    out[route] = {
      rps: r.requests.average,
      us: ((cpuMs(child.pid) - before) * 1000) / r.requests.total,
      bad: r.non2xx + r.errors,
    }
  }
  const exited = new Promise((r) => child.once("exit", r))
  child.kill("SIGTERM")
  await exited
  rmSync(dataDir, { recursive: true, force: true })
  return out
}

const samples = Object.fromEntries(variants.map((v) => [v, []]))
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? variants : [...variants].reverse()
  for (const v of order) {
    const out = await measure(v, round)
    samples[v].push(out)
    console.error(
      `round ${round + 1} ${v}: cold ${out.cold.rps.toFixed(0)} ms ${out.cold.us.toFixed(1)} MiB | ${routes.map((r) => `${r} ${Math.round(out[r].rps)} req/s ${out[r].us.toFixed(0)} µs${out[r].bad ? ` BAD ${out[r].bad}` : ""}`).join(" | ")}  (load ${os.loadavg()[0].toFixed(1)})`,
    )
  }
}
console.log("\ncold start / idle RSS")
for (const v of variants) {
  const s = samples[v].map((o) => o.cold)
  console.log(
    `  ${v.padEnd(16)} ${median(s.map((x) => x.rps))
      .toFixed(0)
      .padStart(6)} ms (CPU ${median(s.map((x) => x.cpu)).toFixed(0)} ms)  ${median(s.map((x) => x.us))
      .toFixed(1)
      .padStart(6)} MiB`,
  )
}
for (const route of routes) {
  console.log(`\n${route}`)
  for (const v of variants) {
    const s = samples[v].map((o) => o[route])
    console.log(
      `  ${v.padEnd(16)} ${Math.round(median(s.map((x) => x.rps)))
        .toString()
        .padStart(6)} req/s  ${median(s.map((x) => x.us))
        .toFixed(0)
        .padStart(4)} µs CPU/req`,
    )
  }
}
const medianOf = (v, route, field) => median(samples[v].map((o) => o[route][field]))
if (routes.length > 1) {
  console.log(`\n${routes[1]} / ${routes[0]}, per build (req/s ratio; CPU/req ratio)`)
  for (const v of variants) {
    const rps = medianOf(v, routes[1], "rps") / medianOf(v, routes[0], "rps")
    const us = medianOf(v, routes[1], "us") / medianOf(v, routes[0], "us")
    console.log(`  ${v.padEnd(16)} ${rps.toFixed(2)}×  ${us.toFixed(2)}×`)
  }
}
for (const floor of ["floor", "floor-api", "floor-router", "floor-fiber"].filter((x) => variants.includes(x))) {
  console.log(`\nCPU per request against ${floor} (same rounds)`)
  for (const v of variants.filter((x) => x !== floor))
    console.log(
      `  ${v.padEnd(16)} ${routes.map((r) => `${r} ${(medianOf(v, r, "us") / medianOf(floor, r, "us")).toFixed(2)}×`).join("  ")}`,
    )
}
console.log(
  `\nresults: ${writeResults("ab", { date: new Date().toISOString(), rounds, seconds, routes, variants, samples })}`,
)

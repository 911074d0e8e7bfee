#!/usr/bin/env node
// Lease failover time: two `aide-server` replicas on one PostgreSQL database; the holder of the
// scheduler lease is stopped (SIGKILL, then SIGTERM) and we time how long until the other
// replica logs that it took the lease. A new standby is started after each round.
//
//   AIDE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/lease-failover.mjs
//   env: ROUNDS [5] per signal, AIDE_LEASE_TTL [5] seconds (the server's default)
//
// Needs packages/server/dist (npx -y pnpm@10.20.0 --filter @aide/server... run build).

import { spawn } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const main = path.join(root, "packages/server/dist/main.js")
const adminUrl = process.env.AIDE_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const rounds = Number(process.env.ROUNDS ?? 5)
const ttl = process.env.AIDE_LEASE_TTL ?? "5"
// The kernel's PostgreSQL driver, as @effect/sql-pg resolves it.
const requireFromSqlPg = createRequire(
  realpathSync(path.join(root, "packages/kernel/node_modules/@effect/sql-pg/package.json")),
)
const { Client } = requireFromSqlPg("pg")

const admin = async (statement) => {
  const client = new Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

const name = `aide_bench_failover_${process.pid}`
await admin(`CREATE DATABASE ${name}`)
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString()
const dirs = []
const live = new Set()

/** A replica; `taken` resolves with the wall-clock time it logged taking the scheduler lease. */
const startReplica = () =>
  new Promise((resolve, reject) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "aide-bench-failover-"))
    dirs.push(dataDir)
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        AIDE_DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        AIDE_JWT_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
        AIDE_LEASE_TTL: ttl,
        AIDE_LOG_FORMAT: "json",
        AIDE_LOG_LEVEL: "Info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    })
    live.add(child)
    let resolveTaken
    const replica = {
      child,
      taken: new Promise((r) => {
        resolveTaken = r
      }),
      exited: new Promise((r) => child.on("exit", r)),
    }
    child.on("exit", () => live.delete(child))
    let buffer = ""
    child.stdout.on("data", (chunk) => {
      buffer += chunk
      let newline = buffer.indexOf("\n")
      while (newline !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        newline = buffer.indexOf("\n")
        try {
          const parsed = JSON.parse(line)
          if (parsed.message === "listening") resolve(replica)
          if (parsed.message === "replicas: lease taken" && parsed.annotations?.lease === "scheduler") {
            resolveTaken(Date.now())
          }
        } catch {}
      }
    })
    setTimeout(() => reject(new Error("replica did not start in 30 s")), 30_000)
  })

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

try {
  let holder = await startReplica()
  await holder.taken
  const results = {}
  for (const signal of ["SIGKILL", "SIGTERM"]) {
    const times = []
    for (let round = 0; round < rounds; round++) {
      const standby = await startReplica()
      // Let the standby settle into its retry rhythm, as a long-running one would be.
      await new Promise((r) => setTimeout(r, 1000))
      const stoppedAt = Date.now()
      holder.child.kill(signal)
      const takenAt = await standby.taken
      await holder.exited
      times.push(takenAt - stoppedAt)
      holder = standby
    }
    results[signal] = times
    console.log(
      `${signal}: failover median ${median(times)} ms, max ${Math.max(...times)} ms (lease ttl ${ttl} s; ${times.join(", ")} ms)`,
    )
  }
} finally {
  for (const child of live) child.kill("SIGKILL")
  await new Promise((r) => setTimeout(r, 500))
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
}

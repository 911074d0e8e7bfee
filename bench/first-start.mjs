#!/usr/bin/env node
// First `start` of a fresh clone (warm package store): from `aide start` with no server bundle
// and no console build until the API answers (`GET /`), and until the console answers (`GET
// /app/` 200, not the "building…" page). Deletes the builds of the repositories it measures.
//
//   node bench/first-start.mjs [repo …]     # default: this repository; ≈ 40 s per run
//
// Several repositories (e.g. a worktree of an older commit, then this one) are measured in
// alternating rounds: an A/B in one run. BENCH_RUNS [2] rounds.
//
// BENCH_INSTALL=1: each round first runs the README's install (`pnpm install --offline`, warm
// store) and times it too: with the builds moved to install (the root `prepare`), the first start
// has nothing to build, so the install's share is part of the figure.

import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import * as path from "node:path"
import { log, median, removeDir, root, round, sleep, table, tmpDir, writeResults } from "./harness.mjs"

const repos = process.argv.length > 2 ? process.argv.slice(2).map((repo) => path.resolve(repo)) : [root]
const runs = Number(process.env.BENCH_RUNS ?? 2)
const withInstall = process.env.BENCH_INSTALL === "1"

const install = (repo) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn("npx", ["-y", "pnpm@10.20.0", "install", "--offline"], { cwd: repo, stdio: "ignore" })
    child.once("exit", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`install failed in ${repo}`)),
    )
  })

const once = async (repo) => {
  for (const build of ["packages/server/dist", "packages/console/dist"])
    rmSync(path.join(repo, build), { recursive: true, force: true })
  const installMs = withInstall ? await install(repo) : 0
  const dataDir = tmpDir("aide-bench-first-start-")
  const started = performance.now()
  const child = spawn(process.execPath, [path.join(repo, "packages/cli/bin/aide.mjs"), "start"], {
    cwd: dataDir,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", AIDE_DATA_DIR: dataDir, AIDE_LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout.on("data", (chunk) => {
    output += chunk
  })
  child.stderr.on("data", (chunk) => {
    output += chunk
  })
  try {
    let url
    while (url === undefined) {
      if (performance.now() - started > 180_000) throw new Error(`no server after 180 s:\n${output.slice(-2000)}`)
      url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1]
      if (url === undefined) await sleep(50)
    }
    const answers = async (pathname, ok) => {
      for (;;) {
        const response = await fetch(`${url}${pathname}`, { headers: { accept: "application/json" } }).catch(() => null)
        if (response !== null && ok(response.status)) return performance.now() - started
        await sleep(100)
      }
    }
    const api = await answers("/", (status) => status === 200)
    const console = await answers("/app/", (status) => status === 200)
    return { install: installMs, api, console }
  } finally {
    child.kill("SIGINT")
    await new Promise((resolve) => child.once("exit", resolve))
    removeDir(dataDir)
  }
}

const results = new Map(repos.map((repo) => [repo, []]))
for (let round = 0; round < runs; round++) {
  for (const repo of repos) {
    const result = await once(repo)
    log(
      `${repo}: ${withInstall ? `install ${Math.round(result.install)} ms, ` : ""}API ${Math.round(result.api)} ms, console ${Math.round(result.console)} ms`,
    )
    results.get(repo).push(result)
  }
}
console.log(
  table(
    ["repository", "install (median)", "API answers (median)", "console answers (median)"],
    repos.map((repo) => {
      const rows = results.get(repo)
      return [
        repo,
        withInstall ? `${round(median(rows.map((r) => r.install)) / 1000, 1)} s` : "not run",
        `${round(median(rows.map((r) => r.api)) / 1000, 1)} s`,
        `${round(median(rows.map((r) => r.console)) / 1000, 1)} s`,
      ]
    }),
  ),
)
writeResults("first-start", { repos: Object.fromEntries(results) })

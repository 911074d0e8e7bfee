/** Two `aide-server` processes on one PostgreSQL database, behind a round-robin proxy on loopback. */
import { mkdtempSync, rmSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createTestDatabase } from "@aide/testing/effect"
import { type AideProcess, startServer } from "./process.js"

export type Replica = AideProcess & { readonly url: string }

export interface Replicas {
  readonly databaseUrl: string
  /** The round-robin proxy's base URL: requests alternate between the live replicas. */
  readonly url: string
  readonly replicas: Array<Replica>
  /** Starts one more replica on the same database and secret (`env` adds to the shared one). */
  readonly start: (env?: Record<string, string>) => Promise<Replica>
  readonly close: () => Promise<void>
}

/** One shared signing secret: a token from one replica works on every other. */
const jwtSecret = "replica-test-secret-0123456789abcdef0123456789"

/**
 * The harness: a fresh database, `count` replicas started one after the other (the first
 * migrates), each with its own data directory, short leases (`AIDE_LEASE_TTL`, 2 s) and `env`.
 */
export const startReplicas = async (count: number, env: Record<string, string>): Promise<Replicas> => {
  const database = await createTestDatabase()
  const dirs: Array<string> = []
  const replicas: Array<Replica> = []
  const start = async (extra: Record<string, string> = {}) => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-replica-"))
    dirs.push(dataDir)
    const replica = await startServer({
      AIDE_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      AIDE_JWT_SECRET: jwtSecret,
      AIDE_LEASE_TTL: "2",
      AIDE_LOG_FORMAT: "json",
      ...env,
      ...extra,
    })
    replicas.push(replica)
    return replica
  }
  for (let i = 0; i < count; i++) await start()

  let next = 0
  const proxy = Http.createServer((request, response) => {
    const live = replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null)
    const target = new URL(live[next++ % live.length]!.url)
    const upstream = Http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    upstream.on("error", () => {
      if (!response.headersSent) response.writeHead(502)
      response.end()
    })
    request.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`

  const close = async () => {
    proxy.closeAllConnections()
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
    for (const replica of replicas) replica.child.kill("SIGKILL")
    await Promise.all(replicas.map((replica) => replica.exited))
    await database.drop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
  return { databaseUrl: database.url, url, replicas, start, close }
}

/** Waits until `check` is true, polling every 50 ms, failing after `ms`. */
export const eventually = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for: ${what}`)
}

/** The leases `replica` took and has not lost since, from its JSON log lines. */
export const heldLeases = (replica: Replica) => {
  const held = new Set<string>()
  for (const line of replica.stdout) {
    try {
      const parsed = JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> }
      const lease = String(parsed.annotations?.lease)
      if (parsed.message === "replicas: lease taken") held.add(lease)
      if (parsed.message === "replicas: lease lost") held.delete(lease)
    } catch {
      // not JSON
    }
  }
  return held
}

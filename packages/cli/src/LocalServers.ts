import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { credentialsFile } from "./Paths.js"

/**
 * Which data directory belongs to which server on this machine. The HTTP API does not tell (a
 * server never reveals its paths), so `aide start` writes it down when it starts a server on a
 * fixed port, and `aide doctor` / `aide backup` read it for the server `aide login` chose. The
 * file sits beside the credentials: `<config dir>/aide/servers.json`.
 */
interface ServersDocument {
  readonly servers: Record<string, { readonly dataDir: string; readonly startedAt: string }>
}

const file = () => join(dirname(credentialsFile()), "servers.json")

const loopback = new Set(["127.0.0.1", "localhost", "[::1]", "::1", "0.0.0.0", "[::]", "::"])

/** Whether the server at `url` runs on this machine (only then is its data directory here). */
export const isLocal = (url: string) => {
  try {
    const host = new URL(url).hostname
    return loopback.has(host) || host.startsWith("127.")
  } catch {
    return false
  }
}

/** One key per local server: every loopback spelling of a port is the same server. */
const keyOf = (url: string) => {
  try {
    const parsed = new URL(url)
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80")
    return `${parsed.protocol}//${isLocal(url) ? "127.0.0.1" : parsed.hostname}:${port}`
  } catch {
    return url
  }
}

/** The URL of a server listening on `host`:`port` (an IPv6 address in brackets). */
export const urlOf = (host: string, port: number) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`

const read = (): ServersDocument => {
  try {
    const parsed = JSON.parse(readFileSync(file(), "utf8")) as ServersDocument
    return { servers: parsed.servers ?? {} }
  } catch {
    return { servers: {} }
  }
}

/** Written by `aide start`: the server about to listen at `url` keeps its data in `dataDir`. */
export const recordStart = (url: string, dataDir: string) => {
  const target = file()
  const document = read()
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  const temporary = `${target}.${process.pid}.tmp`
  const servers = {
    ...document.servers,
    [keyOf(url)]: { dataDir: resolve(dataDir), startedAt: new Date().toISOString() },
  }
  writeFileSync(temporary, `${JSON.stringify({ servers }, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, target)
}

/** Where a data directory came from, said in doctor's and backup's output. */
export interface DataDirChoice {
  readonly dir: string
  readonly source: string
  /** False when the server is on another machine and nothing named a local data directory. */
  readonly local: boolean
}

/**
 * The data directory of the server at `url`: `--data-dir`, else `AIDE_DATA_DIR`, else the one
 * `aide start` recorded for that server, else `./.aide` (the server's own default).
 */
export const dataDirFor = (option: string | undefined, url: string): DataDirChoice => {
  if (option !== undefined) return { dir: resolve(option), source: "--data-dir", local: true }
  if (process.env.AIDE_DATA_DIR)
    return { dir: resolve(process.env.AIDE_DATA_DIR), source: "AIDE_DATA_DIR", local: true }
  const recorded = read().servers[keyOf(url)]
  if (recorded !== undefined && existsSync(recorded.dataDir))
    return { dir: recorded.dataDir, source: `recorded by aide start for ${url}`, local: true }
  return {
    dir: resolve(".aide"),
    source: `the default ./.aide; aide start did not record one for ${url}`,
    local: isLocal(url),
  }
}

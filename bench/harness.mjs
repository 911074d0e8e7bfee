// Shared helpers of bench/chat.mjs and bench/threads.mjs: spawn the bundled server
// (packages/server/dist/main.js) on loopback, set it up, talk HTTP/SSE to it, read its RSS.
// Loopback only; every wait is bounded.

import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const mainJs = path.resolve(process.env.BENCH_SERVER ?? path.join(root, "packages/server/dist/main.js"))
export const PASSWORD = "correct horse battery staple"

export const log = (...args) => console.error("[bench]", ...args)
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]
}
export const median = (values) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
export const round = (value, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value)

export const tmpDir = (prefix) => mkdtempSync(path.join(os.tmpdir(), prefix))

/** Markdown table from a header row and rows of cells. */
export const table = (header, rows) =>
  [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n")

/** bench/results/<name>-<timestamp>.json */
export const writeResults = (name, data) => {
  const dir = path.join(root, "bench/results")
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`)
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`)
  return path.relative(root, file)
}

export const rssMiB = (pid) => {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match ? Number(match[1]) / 1024 : Number.NaN
  } catch {
    return Number.NaN
  }
}

const statCpuMs = (file) => {
  const stat = readFileSync(file, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** CPU time (user + system, ms) of every thread of `pid`. */
export const cpuMs = (pid) => statCpuMs(`/proc/${pid}/stat`)

/**
 * CPU time of `pid`'s main thread alone: what can delay a response. The rest of `cpuMs` is V8's
 * worker threads (parallel and concurrent GC, concurrent compilation) and libuv's pool.
 */
export const mainThreadCpuMs = (pid) => statCpuMs(`/proc/${pid}/task/${pid}/stat`)

/** Polls the RSS of `pid` every `intervalMs` until stopped; returns { stop(): peak MiB }. */
export const watchPeakRss = (pid, intervalMs = 10) => {
  let peak = rssMiB(pid)
  const timer = setInterval(() => {
    const now = rssMiB(pid)
    if (now > peak) peak = now
  }, intervalMs)
  return {
    stop: () => {
      clearInterval(timer)
      const now = rssMiB(pid)
      return now > peak ? now : peak
    },
  }
}

/** The ESM build of a dependency of `packages/<pkg>`, so the bench shares the kernel's instance. */
export const importFrom = async (pkg, name) => {
  const dir = path.join(root, "packages", pkg, "node_modules", name)
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"))
  const entry = manifest.exports?.["."]?.import ?? manifest.module ?? manifest.main
  return import(pathToFileURL(path.join(dir, entry)).href)
}

/** The fake model (bench/fake-llm.mjs) in its own process; resolves { url, stop }. */
export const startFakeModel = () =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "bench/fake-llm.mjs"), "0"], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    child.once("error", reject)
    child.stdout.once("data", (chunk) => {
      const port = Number(String(chunk).trim())
      resolve({ url: `http://127.0.0.1:${port}/v1`, stop: () => child.kill("SIGTERM") })
    })
  })

/**
 * Spawns the bundled server with PORT=0 and `dataDir`; resolves once its JSON "listening" log
 * line gives the URL (`startMs`, 15 s by default or `BENCH_START_MS` on a loaded machine). `launcher`: a command the server runs under
 * (`["valgrind", "--tool=callgrind"]`); `stopMs`: how long `stop` waits after SIGTERM (10 s).
 */
export const startServer = async ({
  dataDir,
  env = {},
  nodeArgs = [],
  main = mainJs,
  launcher = [],
  startMs = Number(process.env.BENCH_START_MS ?? 15_000),
  stopMs = 10_000,
}) => {
  const childEnv = { ...process.env }
  delete childEnv.DATABASE_URL
  const [command, ...args] = [...launcher, process.execPath, ...nodeArgs, main]
  const child = spawn(command, args, {
    env: {
      ...childEnv,
      PORT: "0",
      HOST: "127.0.0.1",
      AIDE_DATA_DIR: dataDir,
      AIDE_LOG_LEVEL: "Info",
      AIDE_LOG_FORMAT: "json",
      NODE_ENV: "production",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  if (child.pid === undefined) throw new Error("could not spawn the server")
  let output = ""
  let exited = null
  child.on("exit", (code, signal) => {
    exited = { code, signal }
  })
  child.stderr.on("data", (chunk) => {
    output = (output + chunk).slice(-20_000)
  })
  const url = await new Promise((resolve, reject) => {
    let buffer = ""
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${startMs / 1000} s:\n${output}`)),
      startMs,
    )
    const onData = (chunk) => {
      buffer += chunk
      output = (output + chunk).slice(-20_000)
      let newline = buffer.indexOf("\n")
      while (newline !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        newline = buffer.indexOf("\n")
        try {
          const entry = JSON.parse(line)
          const message = Array.isArray(entry.message) ? entry.message.join(" ") : entry.message
          if (message === "listening" && entry.annotations?.url) {
            clearTimeout(timer)
            child.stdout.off("data", onData)
            // Keep draining the logs (an unread pipe would block the server).
            child.stdout.on("data", (more) => {
              output = (output + more).slice(-20_000)
            })
            resolve(entry.annotations.url)
            return
          }
        } catch {}
      }
    }
    child.stdout.on("data", onData)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`))
    })
  })
  const stop = async () => {
    if (exited) return exited
    const done = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), stopMs)
    const result = await done
    clearTimeout(timer)
    return result
  }
  return { child, pid: child.pid, url, stop, logs: () => output }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })

/**
 * One JSON request on loopback (keep-alive); resolves { status, body, ms }. A reused socket that
 * the server closed while idle (its keep-alive timeout) is retried once on a new connection.
 */
export const request = async (baseUrl, options = {}) => {
  try {
    return await requestOnce(baseUrl, options)
  } catch (error) {
    if (error?.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE"))
      return requestOnce(baseUrl, options)
    throw error
  }
}

const requestOnce = (baseUrl, { method = "GET", path: urlPath = "/", body, token, timeout = 30_000 } = {}) =>
  new Promise((resolve, reject) => {
    const url = new URL(urlPath, baseUrl)
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const started = performance.now()
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        agent,
        timeout,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => {
          const ms = performance.now() - started
          const text = Buffer.concat(chunks).toString("utf8")
          let parsed = text
          try {
            parsed = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode, body: parsed, ms })
        })
        res.on("error", reject)
      },
    )
    req.on("timeout", () => req.destroy(new Error(`timeout ${method} ${urlPath}`)))
    req.on("error", (error) => {
      error.reusedSocket = req.reusedSocket
      reject(error)
    })
    req.end(payload)
  })

/** POST /api/auth/setup, then the operator model on the fake provider. Returns the token. */
/** A JSON request with plain `fetch` (the outside scripts' way); throws on a non-2xx answer. */
export const fetchJson = async (base, method, urlPath, body, token) => {
  const res = await fetch(base + urlPath, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body && JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`)
  return res.json()
}

export const setUp = async (baseUrl) => {
  const setup = await request(baseUrl, { method: "POST", path: "/api/auth/setup", body: { password: PASSWORD } })
  if (setup.status !== 200 && setup.status !== 201)
    throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`)
  const token = setup.body.token
  const config = await request(baseUrl, {
    method: "PATCH",
    path: "/api/config",
    token,
    body: { models: { operator: { provider: "openai-compatible", model: "fake" } } },
  })
  if (config.status !== 200) throw new Error(`config: ${config.status} ${JSON.stringify(config.body)}`)
  return token
}

/**
 * A streaming POST whose body is SSE (`data: …\n\n`). `onEvent(data, now)` gets every data
 * payload (a string) with its arrival time; resolves { status, events, headers, ms } at the end
 * of the body. Bounded by `timeout` (ms of inactivity).
 */
export const sse = async (url, options) => {
  try {
    return await sseOnce(url, options)
  } catch (error) {
    // A reused keep-alive socket the server had closed: nothing was processed, try once more.
    if (error?.reusedSocket && error.beforeResponse && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
      return sseOnce(url, options)
    }
    throw error
  }
}

const sseOnce = (url, { body, headers = {}, onEvent = () => {}, timeout = 60_000 }) =>
  new Promise((resolve, reject) => {
    let responded = false
    const target = new URL(url)
    const payload = JSON.stringify(body)
    const started = performance.now()
    let events = 0
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: target.pathname + target.search,
        agent,
        timeout,
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        responded = true
        let buffer = ""
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => {
          const now = performance.now()
          if (res.statusCode !== 200) {
            text += chunk
            return
          }
          buffer += chunk
          let end = buffer.indexOf("\n\n")
          while (end !== -1) {
            const frame = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            end = buffer.indexOf("\n\n")
            for (const line of frame.split("\n")) {
              if (line.startsWith("data: ")) {
                events++
                onEvent(line.slice(6), now)
              }
            }
          }
        })
        res.on("end", () =>
          resolve({ status: res.statusCode, events, headers: res.headers, text, ms: performance.now() - started }),
        )
        res.on("error", reject)
      },
    )
    req.on("timeout", () => req.destroy(new Error("SSE timeout")))
    req.on("error", (error) => {
      error.reusedSocket = req.reusedSocket
      error.beforeResponse = !responded
      reject(error)
    })
    req.end(payload)
  })

export const removeDir = (dir) => rmSync(dir, { recursive: true, force: true })

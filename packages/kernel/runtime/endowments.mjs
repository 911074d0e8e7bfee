// What a plugin's code may reach: the tool context and, in a compartment, the globals. Only
// what `permissions` grants; everything handed into a compartment is hardened first, so one
// entry cannot tamper with what another (or the runner) relies on.

import { promises as fs } from "node:fs"
import * as path from "node:path"
import { errorMessage, log, messageLimit, request } from "./wire.mjs"

const freeze = (value) => (typeof globalThis.harden === "function" ? globalThis.harden(value) : Object.freeze(value))

/** A `fetch` brokered by the host's Egress (hosts = permissions.network, https only). */
export const brokeredFetch = () =>
  async function fetch(input, init) {
    const req = new Request(input, init)
    const raw = req.body === null ? null : await req.arrayBuffer()
    // Its base64 must fit in one wire message: refused here, before a copy is made of it.
    if (raw !== null && Math.ceil(raw.byteLength / 3) * 4 + 64 * 1024 > messageLimit()) {
      throw new Error(`fetch refused: a request body of ${raw.byteLength} bytes is larger than the wire takes`)
    }
    const body = raw === null ? null : Buffer.from(raw).toString("base64")
    const answer = await request(
      "fetch",
      { url: req.url, method: req.method, headers: [...req.headers], body },
      init?.signal ?? undefined,
    )
    const bytes = Buffer.from(String(answer.body ?? ""), "base64")
    const nullBody = [101, 103, 204, 205, 304].includes(answer.status)
    const response = new Response(nullBody ? null : bytes, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    })
    Object.defineProperty(response, "url", { value: answer.url })
    return response
  }

const within = (root, target) => target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep)

/**
 * A read-only fs over the declared prefixes: the path's realpath must be one of them or lie
 * under one on a path boundary (so `/allowed-evil` is not under `/allowed`, and a symlink out
 * of an allowed folder is judged by where it leads).
 */
export const readOnlyFs = async (prefixes) => {
  const declared = prefixes.map((prefix) => path.resolve(prefix))
  const roots = []
  for (const prefix of declared) roots.push(await fs.realpath(prefix).catch(() => null))
  const allowed = roots.filter((root) => root !== null)
  const outside = (file) => new Error(`fs: ${file} is outside the declared fs paths`)
  const check = async (file) => {
    if (typeof file !== "string" || !path.isAbsolute(file)) throw new Error("fs: paths must be absolute strings")
    // By name first (`..` resolved), so that the answer does not depend on what exists outside.
    const named = path.resolve(file)
    if (![...declared, ...allowed].some((root) => within(root, named))) throw outside(file)
    // Then by where it leads: a symlink is judged by its target.
    const real = await fs.realpath(named).catch(() => {
      throw new Error(`fs: ${file} does not exist or is not readable`)
    })
    if (!allowed.some((root) => within(root, real))) throw outside(file)
    return real
  }
  return freeze({
    readFile: async (file, encoding) => {
      const data = await fs.readFile(await check(file))
      return encoding === undefined ? new Uint8Array(data) : data.toString(encoding)
    },
    readdir: async (dir) => fs.readdir(await check(dir)),
    stat: async (file) => {
      const stat = await fs.stat(await check(file))
      return { size: stat.size, isFile: stat.isFile(), isDirectory: stat.isDirectory(), mtimeMs: stat.mtimeMs }
    },
  })
}

const consoleToLog = () => {
  const at =
    (level) =>
    (...args) =>
      log(level, args.map((arg) => (typeof arg === "string" ? arg : safeJson(arg))).join(" "))
  return { log: at("info"), info: at("info"), debug: at("debug"), warn: at("warn"), error: at("error") }
}

const safeJson = (value) => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Timers for the `time` grant (a channel's heartbeat, a reconnect's backoff): handles are plain
 * numbers, never Node's Timeout objects; a callback that throws is logged, not a crash.
 */
const timers = () => {
  const live = new Map()
  let next = 1
  const start =
    (repeat) =>
    (callback, ms, ...args) => {
      if (typeof callback !== "function") throw new TypeError("a timer's callback must be a function")
      const id = next++
      const run = () => {
        if (!repeat) live.delete(id)
        try {
          Reflect.apply(callback, undefined, args)
        } catch (error) {
          log("error", `a timer's callback threw: ${errorMessage(error)}`)
        }
      }
      const delay = typeof ms === "number" && ms > 0 ? ms : 0
      live.set(id, repeat ? setInterval(run, delay) : setTimeout(run, delay))
      return id
    }
  const clear = (id) => {
    const timer = live.get(id)
    if (timer === undefined) return
    live.delete(id)
    clearTimeout(timer)
    clearInterval(timer)
  }
  return { setTimeout: start(false), setInterval: start(true), clearTimeout: clear, clearInterval: clear }
}

/** The globals of a compartment: harmless ones, plus what `permissions` grants. */
export const compartmentGlobals = async (permissions, fetch) => {
  // No timers without the `time` grant: `AbortSignal.timeout` is the one timer among the
  // endowments, and it is reachable from every signal (`signal.constructor.timeout`), so it is
  // removed from the class itself, before hardening, in this process that serves no one else.
  if (permissions.time !== true) delete AbortSignal.timeout
  const globals = {
    TextEncoder,
    TextDecoder,
    URL,
    URLSearchParams,
    structuredClone,
    AbortController,
    AbortSignal,
    console: consoleToLog(),
    atob,
    btoa,
  }
  // The start compartment keeps the powerful Date and Math after lockdown; others get tamed ones.
  if (permissions.time === true) Object.assign(globals, { Date, Intl, ...timers() })
  if (permissions.random === true) {
    const getRandomValues = (array) => crypto.getRandomValues(array)
    Object.assign(globals, { Math, crypto: { getRandomValues, randomUUID: () => crypto.randomUUID() } })
  }
  if (fetch !== undefined) Object.assign(globals, { fetch, Response, Headers, Request })
  if ((permissions.fs ?? []).length > 0) globals.fs = await readOnlyFs(permissions.fs)
  for (const value of Object.values(globals)) freeze(value)
  return globals
}

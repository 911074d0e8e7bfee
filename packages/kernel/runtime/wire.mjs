// The child's end of the wire (docs/plugin-sandbox.md): JSON messages, each framed as a 4-byte
// big-endian length and that many bytes of UTF-8, over fd 3 (a socket pair the host opened; there
// is no Node IPC channel). The host's copy of the framing is src/plugins/sandbox/Frames.ts.
// Captured before any plugin code runs; compartment code never sees `process` or this socket, so
// it cannot send messages of its own. Everything taken out of a plugin's values to send is a
// primitive string read with functions captured here, never a method the plugin could provide.

import { Socket } from "node:net"

const call = Function.prototype.call
const sliceText = call.bind(String.prototype.slice)
const stringify = JSON.stringify
const parse = JSON.parse
const byteLength = Buffer.byteLength
const ErrorClass = Error
const hasOwn = Object.hasOwn
const WeakSetClass = WeakSet

/** Opened by `serve`, not when this module loads: the precompile step evaluates this module (to make its code cache) in a process without fd 3. */
let socket
const pending = new Map()
const inFlight = new Map()
const headerBytes = 4
/** Largest message the host accepts (set by `init`); a bigger one is refused here, not sent. */
let outgoingLimit = Number.POSITIVE_INFINITY
/** Largest message read from the host (a fetch answer of 10 MiB is ~14 MiB of base64). */
const incomingLimit = 64 * 1024 * 1024
let nextId = 1
const maxLog = 4096

/** Called by `init` with the host's message limit. */
export const setMessageLimit = (bytes) => {
  if (typeof bytes === "number" && bytes > 0) outgoingLimit = bytes
}

/** The host's message limit, for a caller that can refuse before it builds a message. */
export const messageLimit = () => outgoingLimit

const runnerErrors = new WeakSetClass()
/** An error the runner itself raised for an oversize answer (reason "output" on the host). */
export const outputTooLarge = (message) => {
  const error = new ErrorClass(message)
  runnerErrors.add(error)
  return error
}

/** Errors cross the wire as their message only (stacks would leak the host's paths); never a plugin method. */
export const errorMessage = (error) => {
  try {
    if (typeof error === "string") return sliceText(error, 0, maxLog)
    if (error instanceof ErrorClass) {
      // Reading `message` may run a plugin getter: it is in this try, and only a string is kept.
      const message = error.message
      return typeof message === "string" ? sliceText(message, 0, maxLog) : "an error whose message is not text"
    }
  } catch {
    return "an error that could not be read"
  }
  return "unknown error"
}

/** The frame of `message`, or undefined when it cannot be encoded or is larger than the host takes. */
const frameOf = (message) => {
  let text
  try {
    text = stringify(message)
  } catch {
    return undefined
  }
  if (typeof text !== "string") return undefined
  const bytes = byteLength(text)
  if (bytes > outgoingLimit) return undefined
  const frame = Buffer.allocUnsafe(headerBytes + bytes)
  frame.writeUInt32BE(bytes, 0)
  frame.write(text, headerBytes, "utf8")
  return frame
}

const write = (frame) => {
  if (frame !== undefined && socket !== undefined && !socket.destroyed) socket.write(frame)
}

const reply = (id, outcome) => {
  if (!inFlight.delete(id)) return // cancelled: the host no longer waits
  const frame =
    frameOf({ kind: "response", id, ...outcome }) ??
    frameOf({
      kind: "response",
      id,
      ok: false,
      error: { message: `the answer is larger than the wire takes (${outgoingLimit} bytes)`, code: "output" },
    })
  write(frame)
}

/** A request child→host; `signal` cancels it on both sides. */
export const request = (method, params, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const id = `c${nextId++}`
    const frame = frameOf({ kind: "request", id, method, params })
    if (frame === undefined) {
      return reject(
        new ErrorClass(`${method} refused: the request is larger than the wire takes (${outgoingLimit} bytes)`),
      )
    }
    const onAbort = () => {
      pending.delete(id)
      write(frameOf({ kind: "cancel", id }))
      reject(signal.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    pending.set(id, (message) => {
      signal?.removeEventListener("abort", onAbort)
      if (message.ok) resolve(message.value)
      else reject(new ErrorClass(typeof message.error?.message === "string" ? message.error.message : "request failed"))
    })
    write(frame)
  })

/** `{ kind: "log" }`, bounded: a chatty plugin gets truncated lines, never a huge message. */
export const log = (level, message, data) => {
  const text =
    typeof message === "string"
      ? sliceText(message, 0, maxLog)
      : message === null ||
          (typeof message !== "object" && typeof message !== "function" && typeof message !== "symbol")
        ? `${message}`
        : errorMessage(message)
  let extra
  if (data !== undefined) {
    try {
      const json = stringify(data)
      if (typeof json === "string" && json.length <= 4 * maxLog) extra = parse(json)
    } catch {
      extra = undefined
    }
  }
  const frame = frameOf({ kind: "log", level, message: text, ...(extra === undefined ? {} : { data: extra }) })
  if (frame !== undefined) write(frame)
}

const handle = (handlers, message) => {
  if (message === null || typeof message !== "object") return
  if (message.kind === "response") {
    const settle = pending.get(message.id)
    pending.delete(message.id)
    return void settle?.(message)
  }
  if (message.kind === "cancel") {
    const controller = inFlight.get(message.id)
    inFlight.delete(message.id)
    return void controller?.abort(new ErrorClass("cancelled by the host"))
  }
  if (message.kind !== "request") return
  const controller = new AbortController()
  inFlight.set(message.id, controller)
  const handler = hasOwn(handlers, message.method) ? handlers[message.method] : undefined
  Promise.resolve()
    .then(() => {
      if (handler === undefined) throw new ErrorClass(`unknown method ${message.method}`)
      return handler(message.params ?? {}, controller.signal)
    })
    .then(
      (value) => reply(message.id, { ok: true, value: value ?? null }),
      (error) =>
        reply(message.id, {
          ok: false,
          error: { message: errorMessage(error), ...(runnerErrors.has(error) ? { code: "output" } : {}) },
        }),
    )
}

/** Serves host→child requests with `handlers[method](params, signal)`. */
export const serve = (handlers) => {
  socket = new Socket({ fd: 3, readable: true, writable: true })
  let header = Buffer.alloc(0)
  let expected = -1
  let parts = []
  let received = 0
  socket.on("data", (chunk) => {
    let rest = chunk
    while (rest.length > 0) {
      if (expected < 0) {
        const need = headerBytes - header.length
        header = Buffer.concat([header, rest.subarray(0, need)])
        rest = rest.subarray(need)
        if (header.length < headerBytes) return
        expected = header.readUInt32BE(0)
        header = Buffer.alloc(0)
        // The host never sends these; a wire this confused cannot be trusted to go on.
        if (expected === 0 || expected > incomingLimit) process.exit(70)
        continue
      }
      const take = rest.subarray(0, expected - received)
      rest = rest.subarray(take.length)
      parts.push(take)
      received += take.length
      if (received === expected) {
        const text = Buffer.concat(parts, expected).toString("utf8")
        parts = []
        received = 0
        expected = -1
        let message
        try {
          message = parse(text)
        } catch {
          continue
        }
        handle(handlers, message)
      }
    }
  })
  // The host went away: nothing left to serve.
  socket.on("close", () => process.exit(0))
  socket.on("error", () => process.exit(0))
}

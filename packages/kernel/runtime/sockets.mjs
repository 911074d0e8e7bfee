// A channel's `context.webSocket` and `context.connect` in the plugin's process. The sockets live
// in the host (src/plugins/sandbox/SocketBroker.ts), which checks every target as it checks a
// `fetch`; here are only their handles: requests out (`ws.open`, `ws.send`, `net.connect`,
// `net.write`, …) and `socket.event` requests in. Values a plugin passes are read as primitives
// only (a string, a number, a real typed array), never through a method it could provide; what a
// plugin gets back is hardened in a compartment.

import { errorMessage, log, request } from "./wire.mjs"

const freeze = (value) => (typeof globalThis.harden === "function" ? globalThis.harden(value) : Object.freeze(value))
const apply = Reflect.apply
const ErrorClass = Error
const TypeErrorClass = TypeError
const isView = ArrayBuffer.isView
const ArrayBufferClass = ArrayBuffer
const URLClass = URL
const isArray = Array.isArray
const getPrototypeOf = Object.getPrototypeOf
const ObjectPrototype = Object.prototype

/** Sockets of this process by id: each a function taking its events. */
const sockets = new Map()
let nextId = 1
/** Sends (or writes) of one socket on the wire at once; the rest wait here, in order. */
const sendsInFlight = 8
/** Bytes waiting here per socket; past it `send`/`write` throws (the host has its own bound too). */
const maxWaiting = 4 * 1024 * 1024
/** Data events held for a socket whose `onData` is not set yet (an IMAP greeting comes first). */
const maxHeld = 256

/** The host's `socket.event` request: handed to the socket it names (an unknown id is a closed one). */
export const socketEvent = (params) => {
  const deliver = typeof params?.id === "string" ? sockets.get(params.id) : undefined
  deliver?.(params)
  return null
}

const call = (listener, self, event, what) => {
  if (typeof listener !== "function") return
  try {
    const result = apply(listener, self, [event])
    if (result !== null && typeof result === "object" && typeof result.then === "function") {
      result.then(undefined, (error) => log("error", `${what} listener failed: ${errorMessage(error)}`))
    }
  } catch (error) {
    log("error", `${what} listener threw: ${errorMessage(error)}`)
  }
}

const text = (value, what) => {
  if (typeof value !== "string") throw new TypeErrorClass(`${what} must be a string`)
  return value
}

/** Bytes of a string (UTF-8) or of a real ArrayBuffer or view, as base64. */
const bytesOf = (data, what) => {
  if (typeof data === "string") return Buffer.from(data, "utf8")
  if (data instanceof ArrayBufferClass) return Buffer.from(new Uint8Array(data))
  if (isView(data)) return Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
  throw new TypeErrorClass(`${what} takes a string, an ArrayBuffer or a typed array`)
}

/** A per-socket queue: at most `sendsInFlight` requests out, in order, `maxWaiting` bytes held. */
const sender = (onError) => {
  const queue = []
  let inFlight = 0
  let waiting = 0
  const pump = () => {
    while (inFlight < sendsInFlight && queue.length > 0) {
      const item = queue.shift()
      inFlight += 1
      request(item.method, item.params, undefined)
        .then(item.resolve, (error) => {
          onError(errorMessage(error))
          item.reject(new ErrorClass(errorMessage(error)))
        })
        .finally(() => {
          inFlight -= 1
          waiting -= item.size
          pump()
        })
    }
  }
  return {
    waiting: () => waiting,
    push: (method, params, size) => {
      if (waiting + size > maxWaiting) throw new ErrorClass(`${method} refused: ${waiting} bytes are still waiting`)
      waiting += size
      const done = new Promise((resolve, reject) => queue.push({ method, params, size, resolve, reject })).then(
        () => undefined,
      )
      // Reported through the socket's error event too: a caller that does not await it crashes nothing.
      done.catch(() => undefined)
      pump()
      return done
    },
  }
}

/**
 * Node's `Headers`, read when first needed: `globalThis.Headers` is a getter that loads Node's
 * fetch client (undici, with http, http2, tls, zlib, worker_threads: ~11 MiB of a process), which a
 * channel that never passes headers as an object does not need (docs/plugin-sandbox.md, "Memory").
 */
let HeadersClass
const headersClass = () => {
  HeadersClass ??= globalThis.Headers
  return HeadersClass
}

/** Headers given as a plain object, a `Headers` or `[name, value]` pairs, as pairs of strings. */
const headerList = (given) => {
  if (given === undefined || given === null) return []
  const proto = getPrototypeOf(given)
  const pairs = isArray(given)
    ? given
    : proto !== ObjectPrototype && proto !== null && headersClass() !== undefined && given instanceof HeadersClass
      ? [...given]
      : Object.keys(given).map((name) => [name, given[name]])
  return pairs.map((pair) => [text(pair?.[0], "a header name"), text(pair?.[1], "a header value")])
}

/** `context.webSocket(url, { protocols?, headers? })`: a WHATWG-style WebSocket. */
export const webSocketOf = (signal) =>
  function webSocket(url, options) {
    const href = url instanceof URLClass ? url.href : text(url, "url")
    const protocols = options?.protocols === undefined ? [] : options.protocols
    const list = typeof protocols === "string" ? [protocols] : [...protocols].map((item) => text(item, "a protocol"))
    const headers = headerList(options?.headers)
    const id = `w${nextId++}`
    let readyState = 0
    let protocol = ""
    const handlers = { open: null, message: null, error: null, close: null }
    const listeners = { open: [], message: [], error: [], close: [] }
    const dispatch = (type, event) => {
      const frozen = freeze(event)
      call(handlers[type], socket, frozen, `webSocket ${type}`)
      for (const listener of [...listeners[type]]) call(listener, socket, frozen, `webSocket ${type}`)
    }
    const closed = (code, reason, wasClean) => {
      if (readyState === 3) return
      readyState = 3
      sockets.delete(id)
      signal?.removeEventListener("abort", onAbort)
      dispatch("close", { type: "close", code, reason, wasClean })
    }
    const sends = sender((message) => dispatch("error", { type: "error", message }))
    sockets.set(id, (event) => {
      if (event.type === "open") {
        readyState = 1
        protocol = typeof event.protocol === "string" ? event.protocol : ""
        dispatch("open", { type: "open" })
      } else if (event.type === "message") {
        const data = event.binary ? new Uint8Array(Buffer.from(event.data, "base64")).buffer : event.data
        dispatch("message", { type: "message", data })
      } else if (event.type === "error") dispatch("error", { type: "error", message: event.message })
      else if (event.type === "close") closed(event.code, event.reason, event.code === 1000)
    })
    const onAbort = () => close(1000, "the channel stopped")
    const close = (code, reason) => {
      if (readyState >= 2) return
      readyState = 2
      const params = {
        id,
        ...(typeof code === "number" ? { code } : {}),
        ...(typeof reason === "string" ? { reason } : {}),
      }
      request("socket.close", params, undefined).catch((error) => {
        dispatch("error", { type: "error", message: errorMessage(error) })
        closed(1006, "", false)
      })
    }
    const socket = {
      url: href,
      CONNECTING: 0,
      OPEN: 1,
      CLOSING: 2,
      CLOSED: 3,
      get readyState() {
        return readyState
      },
      get protocol() {
        return protocol
      },
      get bufferedAmount() {
        return sends.waiting()
      },
      send(data) {
        if (readyState === 0) throw new ErrorClass("InvalidStateError: the WebSocket is still connecting")
        if (readyState !== 1) return
        const binary = typeof data !== "string"
        const bytes = bytesOf(data, "send")
        void sends.push("ws.send", { id, binary, data: binary ? bytes.toString("base64") : data }, bytes.byteLength)
      },
      close,
      addEventListener(type, listener) {
        if (listeners[type] !== undefined && !listeners[type].includes(listener)) listeners[type].push(listener)
      },
      removeEventListener(type, listener) {
        const index = listeners[type]?.indexOf(listener) ?? -1
        if (index >= 0) listeners[type].splice(index, 1)
      },
    }
    for (const type of ["open", "message", "error", "close"]) {
      Object.defineProperty(socket, `on${type}`, {
        get: () => handlers[type],
        set: (listener) => {
          handlers[type] = typeof listener === "function" ? listener : null
        },
        enumerable: true,
      })
    }
    freeze(socket)
    if (signal?.aborted) {
      readyState = 3
      throw new ErrorClass("webSocket refused: the channel is stopped")
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    request("ws.open", { id, url: href, protocols: list, headers }, undefined).catch((error) => {
      dispatch("error", { type: "error", message: errorMessage(error) })
      closed(1006, "", false)
    })
    return socket
  }

/** `context.connect({ host, port, tls, servername? })`: a TCP or TLS duplex, once connected. */
export const connectOf = (signal) =>
  async function connect(options) {
    const host = text(options?.host, "host")
    const port = options?.port
    if (typeof port !== "number") throw new TypeErrorClass("port must be a number")
    const tls = options?.tls === true
    const servername = options?.servername === undefined ? undefined : text(options.servername, "servername")
    const id = `n${nextId++}`
    const dataListeners = []
    const closeListeners = []
    const held = []
    let ended
    const finish = (event) => {
      sockets.delete(id)
      signal?.removeEventListener("abort", onAbort)
      ended = freeze(typeof event.error === "string" ? { error: event.error } : {})
      for (const listener of closeListeners) call(listener, undefined, ended, "socket close")
    }
    sockets.set(id, (event) => {
      if (event.type === "close") return finish(event)
      if (event.type !== "data") return
      const bytes = new Uint8Array(Buffer.from(event.data, "base64"))
      if (dataListeners.length > 0) {
        for (const listener of dataListeners) call(listener, undefined, bytes, "socket data")
      } else if (held.length < maxHeld) held.push(bytes)
      else void request("socket.close", { id }, undefined).catch(() => undefined)
    })
    const onAbort = () => void request("socket.close", { id }, undefined).catch(() => undefined)
    try {
      await request("net.connect", { id, host, port, tls, ...(servername === undefined ? {} : { servername }) }, signal)
    } catch (error) {
      sockets.delete(id)
      throw new ErrorClass(errorMessage(error))
    }
    if (ended === undefined) signal?.addEventListener("abort", onAbort, { once: true })
    const writes = sender(() => undefined)
    return freeze({
      write: (data) => {
        const bytes = bytesOf(data, "write")
        return writes.push("net.write", { id, data: bytes.toString("base64") }, bytes.byteLength)
      },
      end: () => writes.push("net.end", { id }, 0),
      close: () => request("socket.close", { id }, undefined).then(() => undefined),
      startTls: (upgrade) => {
        const name = upgrade?.servername === undefined ? (servername ?? host) : text(upgrade.servername, "servername")
        return writes.push("net.startTls", { id, servername: name }, 0)
      },
      onData: (listener) => {
        if (typeof listener !== "function") throw new TypeErrorClass("onData takes a function")
        dataListeners.push(listener)
        for (const bytes of held.splice(0)) call(listener, undefined, bytes, "socket data")
      },
      onClose: (listener) => {
        if (typeof listener !== "function") throw new TypeErrorClass("onClose takes a function")
        closeListeners.push(listener)
        if (ended !== undefined) call(listener, undefined, ended, "socket close")
      },
    })
  }

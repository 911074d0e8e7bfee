import type * as Net from "node:net"
import type { WebSocket } from "ws"
import { limitFetches } from "./FetchLimiter.js"
import type { SocketLimits } from "./SocketLimits.js"
import {
  decodeOr,
  NetConnect,
  NetEnd,
  NetWrite,
  type OpenOptions,
  openSocket,
  openWebSocket,
  SocketClose,
  StartTls,
  upgrade,
  WsOpen,
  WsSend,
} from "./SocketOpen.js"

/**
 * The host's half of a channel's `context.webSocket` and `context.connect` (docs/plugin-sandbox.md):
 * the sockets live here, in Aide's process; the plugin's process sees only their events, sent to
 * it as `socket.event` requests over the wire, and asks for sends and closes with requests of
 * its own. Bounded: sockets open at once, opening attempts (in flight and per second, as
 * `fetch`), one message's size each way, bytes waiting to be written, events the plugin has not
 * yet taken (past that the socket is paused: the peer's sending slows down, Aide's memory does
 * not grow). Every socket of a plugin process is closed when that process exits, and all of
 * them when the plugin stops.
 */

/** The plugin process a socket belongs to: events go to it; its exit closes its sockets. */
export interface Peer {
  readonly emit: (params: Readonly<Record<string, unknown>>) => Promise<unknown>
}

interface Entry {
  readonly peer: Peer
  readonly ws?: WebSocket
  socket?: Net.Socket | undefined
  unacked: number
  paused: boolean
}

const text = (error: unknown) =>
  error instanceof Error && typeof error.message === "string" ? error.message.slice(0, 1_000) : "socket error"

export type SocketHandler = (method: string, params: unknown, signal: AbortSignal, peer: Peer) => Promise<unknown>

export interface SocketBroker {
  readonly handle: SocketHandler
  /** Closes the sockets of a process that exited (nothing is sent to it). */
  readonly closePeer: (peer: Peer) => void
  readonly closeAll: () => void
  readonly openCount: () => number
}

export const make = (
  options: Omit<OpenOptions, "maxMessageBytes" | "connectTimeoutMs">,
  limits: SocketLimits,
  /** Called for each event sent to a plugin: the work it causes there is asked for (the CPU watchdog). */
  delivered: () => void = () => undefined,
) => {
  const open: OpenOptions = {
    ...options,
    maxMessageBytes: limits.maxMessageBytes,
    connectTimeoutMs: limits.connectTimeoutMs,
  }
  const sockets = new Map<Peer, Map<string, Entry>>()
  let count = 0
  const declared = options.entries.length > 0

  const pause = (entry: Entry, paused: boolean) => {
    if (entry.paused === paused) return
    entry.paused = paused
    if (entry.ws !== undefined) paused ? entry.ws.pause() : entry.ws.resume()
    else if (paused) entry.socket?.pause()
    else entry.socket?.resume()
  }
  const emit = (id: string, entry: Entry, event: Record<string, unknown>) => {
    delivered()
    entry.unacked += 1
    if (entry.unacked >= limits.unacked) pause(entry, true)
    entry.peer
      .emit({ id, ...event })
      .catch(() => undefined)
      .finally(() => {
        entry.unacked -= 1
        if (entry.unacked <= limits.unacked / 2) pause(entry, false)
      })
  }
  const remove = (id: string, entry: Entry) => {
    const own = sockets.get(entry.peer)
    if (own?.get(id) !== entry) return
    own.delete(id)
    if (own.size === 0) sockets.delete(entry.peer)
    count -= 1
  }
  const find = (peer: Peer, id: string): Entry => {
    const entry = sockets.get(peer)?.get(id)
    if (entry === undefined) throw new Error("the socket is closed")
    return entry
  }
  const reserve = (method: string, peer: Peer, id: string, entry: Entry) => {
    if (sockets.get(peer)?.has(id) === true) throw new Error(`${method} refused: an id already in use`)
    if (count >= limits.open) throw new Error(`${method} refused: more than ${limits.open} sockets open`)
    const own = sockets.get(peer) ?? new Map<string, Entry>()
    sockets.set(peer, own)
    own.set(id, entry)
    count += 1
  }
  const refuse = (method: string) => {
    if (!declared) throw new Error(`${method} refused: the plugin declares no network permission`)
  }

  /** Listens to a TCP or TLS socket: its data and its end become events. */
  const listen = (id: string, entry: Entry, socket: Net.Socket) => {
    entry.socket = socket
    let failure: string | undefined
    socket.on("data", (chunk: Buffer) => emit(id, entry, { type: "data", data: chunk.toString("base64") }))
    socket.on("error", (error) => {
      failure = text(error)
    })
    socket.on("close", () => {
      if (entry.socket !== socket) return
      remove(id, entry)
      emit(id, entry, { type: "close", ...(failure === undefined ? {} : { error: failure }) })
    })
  }

  const openWs = async (params: unknown, peer: Peer): Promise<unknown> => {
    refuse("webSocket")
    const request = decodeOr(WsOpen, "webSocket")(params)
    const entry: Entry = { peer, unacked: 0, paused: false }
    reserve("webSocket", peer, request.id, entry)
    let ws: WebSocket
    try {
      ws = await openWebSocket(request, open)
    } catch (error) {
      remove(request.id, entry)
      throw error
    }
    if (sockets.get(peer)?.get(request.id) !== entry) {
      ws.terminate()
      throw new Error("webSocket: the plugin process went away")
    }
    Object.assign(entry, { ws })
    const id = request.id
    ws.on("open", () => emit(id, entry, { type: "open", protocol: ws.protocol }))
    ws.on("message", (data: Buffer, binary: boolean) =>
      emit(id, entry, { type: "message", binary, data: data.toString(binary ? "base64" : "utf8") }),
    )
    ws.on("error", (error) => emit(id, entry, { type: "error", message: text(error) }))
    ws.on("close", (code: number, reason: Buffer) => {
      remove(id, entry)
      emit(id, entry, { type: "close", code, reason: reason.toString("utf8") })
    })
    return null
  }

  const connect = async (params: unknown, signal: AbortSignal, peer: Peer): Promise<unknown> => {
    refuse("connect")
    const request = decodeOr(NetConnect, "connect")(params)
    const entry: Entry = { peer, unacked: 0, paused: false }
    reserve("connect", peer, request.id, entry)
    let socket: Net.Socket
    try {
      socket = await openSocket(request, open, signal)
    } catch (error) {
      remove(request.id, entry)
      throw error
    }
    if (sockets.get(peer)?.get(request.id) !== entry) {
      socket.destroy()
      throw new Error("connect: the plugin process went away")
    }
    listen(request.id, entry, socket)
    return null
  }

  const bounded = (method: string, bytes: number, waiting: number) => {
    if (bytes > limits.maxMessageBytes) {
      throw new Error(`${method} refused: ${bytes} bytes is more than one message may hold (${limits.maxMessageBytes})`)
    }
    if (waiting + bytes > limits.maxBufferedBytes) {
      throw new Error(`${method} refused: ${waiting} bytes are still waiting to be sent`)
    }
  }

  const other: Record<string, (params: unknown, peer: Peer) => Promise<unknown> | unknown> = {
    "ws.send": (params, peer) => {
      const request = decodeOr(WsSend, "send")(params)
      const ws = find(peer, request.id).ws
      if (ws === undefined || ws.readyState !== ws.OPEN) throw new Error("send refused: the WebSocket is not open")
      const data = request.binary ? Buffer.from(request.data, "base64") : request.data
      bounded("send", Buffer.byteLength(data), ws.bufferedAmount)
      ws.send(data, { binary: request.binary })
      return null
    },
    "socket.close": (params, peer) => {
      const request = decodeOr(SocketClose, "close")(params)
      const entry = sockets.get(peer)?.get(request.id)
      if (entry === undefined) return null
      if (entry.ws !== undefined) {
        const code = request.code
        const valid = code === undefined || code === 1000 || (code >= 3000 && code <= 4999)
        if (!valid) throw new Error("close refused: the code must be 1000 or 3000-4999")
        entry.ws.close(code, request.reason)
      } else entry.socket?.destroy()
      return null
    },
    "net.write": (params, peer) => {
      const request = decodeOr(NetWrite, "write")(params)
      const socket = find(peer, request.id).socket
      if (socket === undefined || !socket.writable) throw new Error("write refused: the socket is not writable")
      const bytes = Buffer.from(request.data, "base64")
      bounded("write", bytes.byteLength, socket.writableLength)
      socket.write(bytes)
      return null
    },
    "net.end": (params, peer) => {
      find(peer, decodeOr(NetEnd, "end")(params).id).socket?.end()
      return null
    },
    "net.startTls": async (params, peer) => {
      const request = decodeOr(StartTls, "startTls")(params)
      const entry = find(peer, request.id)
      const raw = entry.socket
      if (raw === undefined || "encrypted" in raw) throw new Error("startTls refused: not a plain TCP socket")
      // The TLS socket reads the raw one from now on: the raw socket's listeners go.
      raw.removeAllListeners("data")
      raw.removeAllListeners("close")
      raw.removeAllListeners("error")
      // Errors now surface on the TLS socket; one left unheard here would be thrown.
      raw.on("error", () => undefined)
      entry.socket = undefined
      raw.resume()
      try {
        listen(request.id, entry, await upgrade(raw, request.servername, open))
      } catch (error) {
        remove(request.id, entry)
        raw.destroy()
        emit(request.id, entry, { type: "close", error: text(error) })
        throw error
      }
      return null
    },
  }

  const limiter = limitFetches(
    limits.opens,
    (params, signal) => {
      const [method, peer, inner] = params as readonly [string, Peer, unknown]
      return method === "ws.open" ? openWs(inner, peer) : connect(inner, signal, peer)
    },
    Date.now,
    { what: "socket", plural: "socket openings" },
  )
  const handle: SocketHandler = (method, params, signal, peer) => {
    if (method === "ws.open" || method === "net.connect") return limiter.handle([method, peer, params], signal)
    const run = other[method]
    if (run === undefined) return Promise.reject(new Error(`${method} is not available`))
    return Promise.resolve().then(() => run(params, peer))
  }

  const closeEntry = (entry: Entry) => {
    entry.ws?.terminate()
    entry.socket?.destroy()
  }
  const closePeer = (peer: Peer) => {
    const own = sockets.get(peer)
    if (own === undefined) return
    sockets.delete(peer)
    count -= own.size
    for (const entry of own.values()) closeEntry(entry)
  }
  return {
    handle,
    closePeer,
    closeAll: () => {
      limiter.close()
      for (const peer of [...sockets.keys()]) closePeer(peer)
    },
    openCount: () => count,
  } satisfies SocketBroker
}

import * as Net from "node:net"
import * as Tls from "node:tls"
import { Either, Schema } from "effect"
import { WebSocket } from "ws"
import { normalizeHost } from "../../net/Hosts.js"
import { type AddressPolicy, allows, type NetworkEntry, pinnedAddress, urlPort } from "./NetPolicy.js"

/**
 * Opening a plugin's WebSocket or TCP/TLS socket in the host, after the same checks as its
 * `fetch` (NetPolicy.ts): declared host (and port), every resolved address judged, the
 * connection pinned to the address that was checked. Only the name travels on (Host, SNI), so
 * certificates are still verified against it. No redirect is followed, no compression asked for.
 */

const id = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))
const headerName = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/))

export const WsOpen = Schema.Struct({
  id,
  url: Schema.String.pipe(Schema.maxLength(8_192)),
  protocols: Schema.Array(Schema.String.pipe(Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/))).pipe(
    Schema.maxItems(16),
  ),
  headers: Schema.Array(Schema.Tuple(headerName, Schema.String.pipe(Schema.maxLength(8_192)))).pipe(
    Schema.maxItems(50),
  ),
})

export const NetConnect = Schema.Struct({
  id,
  host: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253)),
  port: Schema.Int.pipe(Schema.between(1, 65_535)),
  tls: Schema.Boolean,
  servername: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253))),
})

export const WsSend = Schema.Struct({ id: Schema.String, data: Schema.String, binary: Schema.Boolean })
export const SocketClose = Schema.Struct({
  id: Schema.String,
  code: Schema.optional(Schema.Int),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(123))),
})
export const NetWrite = Schema.Struct({ id: Schema.String, data: Schema.String })
export const NetEnd = Schema.Struct({ id: Schema.String })
export const StartTls = Schema.Struct({ id: Schema.String, servername: Schema.String.pipe(Schema.maxLength(253)) })

/** The params of `method`, or a refusal in the host's words (a parse error would quote the plugin's values). */
export const decodeOr =
  <A, I>(schema: Schema.Schema<A, I>, method: string) =>
  (params: unknown): A => {
    const decoded = Schema.decodeUnknownEither(schema)(params)
    if (Either.isLeft(decoded)) throw new Error(`${method} refused: the request is not one the broker reads`)
    return decoded.right
  }

/** Headers the WebSocket handshake sets itself; a plugin's value would break or forge it. */
const reserved = new Set(["host", "connection", "upgrade", "content-length", "transfer-encoding"])

export interface OpenOptions {
  readonly entries: ReadonlyArray<NetworkEntry>
  readonly allowPlain: boolean
  readonly policy: AddressPolicy
  readonly ca: string | ReadonlyArray<string> | undefined
  readonly maxMessageBytes: number
  readonly connectTimeoutMs: number
}

const caOption = (ca: OpenOptions["ca"]) => (ca === undefined ? {} : { ca: typeof ca === "string" ? ca : [...ca] })

/** A WebSocket to a checked address; its events are the caller's to listen to. */
export const openWebSocket = async (params: typeof WsOpen.Type, options: OpenOptions): Promise<WebSocket> => {
  let url: URL
  try {
    url = new URL(params.url)
  } catch {
    throw new Error("webSocket refused: the URL is not valid")
  }
  if (url.protocol !== "wss:" && url.protocol !== "ws:") throw new Error("webSocket refused: only wss: and ws: URLs")
  if (url.protocol === "ws:" && !options.allowPlain) throw new Error("webSocket refused: only wss: is allowed")
  if (url.username !== "" || url.password !== "") throw new Error("webSocket refused: credentials in URLs are not sent")
  if (url.hash !== "") throw new Error("webSocket refused: the URL has a fragment")
  const host = normalizeHost(url)
  const port = urlPort(url)
  if (!allows(options.entries, host, port, "webSocket")) {
    throw new Error(`webSocket refused: host ${host}${url.port === "" ? "" : `:${port}`} is not declared`)
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of params.headers) {
    const lower = name.toLowerCase()
    if (reserved.has(lower) || lower.startsWith("sec-websocket-")) {
      throw new Error(`webSocket refused: the header ${lower} is set by the handshake`)
    }
    headers[name] = value
  }
  const address = await pinnedAddress(host, port, options.policy)
  const secure = url.protocol === "wss:"
  const ca = caOption(options.ca)
  return new WebSocket(url.href, [...params.protocols], {
    headers,
    maxPayload: options.maxMessageBytes,
    handshakeTimeout: options.connectTimeoutMs,
    perMessageDeflate: false,
    followRedirects: false,
    ...ca,
    // The connection goes to the checked address; the name stays in Host and SNI.
    createConnection: (connect: object) =>
      secure
        ? Tls.connect({ ...(connect as Tls.ConnectionOptions), ...ca, host: address, servername: sni(host) })
        : Net.connect({ ...(connect as Net.NetConnectOpts), host: address, path: undefined } as Net.NetConnectOpts),
  })
}

/** SNI carries names only (an IP literal is not sent). */
const sni = (host: string) => (Net.isIP(host) === 0 ? host : "")

/** A TCP or TLS socket to a checked address, connected (rejects when it is refused or fails). */
export const openSocket = async (
  params: typeof NetConnect.Type,
  options: OpenOptions,
  signal: AbortSignal,
): Promise<Net.Socket> => {
  const host = params.host
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.+$/, "")
  if (!allows(options.entries, host, params.port, "connect")) {
    throw new Error(`connect refused: ${host}:${params.port} is not declared`)
  }
  const address = await pinnedAddress(host, params.port, options.policy)
  const socket = params.tls
    ? Tls.connect({
        host: address,
        port: params.port,
        servername: params.servername ?? sni(host),
        ...caOption(options.ca),
      })
    : Net.connect({ host: address, port: params.port })
  return new Promise<Net.Socket>((resolve, reject) => {
    const fail = (error: Error) => {
      cleanup()
      socket.destroy()
      reject(new Error(`connect to ${host}:${params.port} failed: ${error.message}`))
    }
    const onAbort = () => fail(new Error("cancelled"))
    const onTimeout = () => fail(new Error(`no connection after ${options.connectTimeoutMs} ms`))
    const connected = () => {
      cleanup()
      resolve(socket)
    }
    const cleanup = () => {
      socket.setTimeout(0)
      socket.off("error", fail)
      socket.off("timeout", onTimeout)
      socket.off(params.tls ? "secureConnect" : "connect", connected)
      signal.removeEventListener("abort", onAbort)
    }
    socket.setTimeout(options.connectTimeoutMs)
    socket.once("timeout", onTimeout)
    socket.once("error", fail)
    socket.once(params.tls ? "secureConnect" : "connect", connected)
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
  })
}

/** Upgrades a connected TCP socket to TLS (STARTTLS), verified against `servername`. */
export const upgrade = (
  raw: Net.Socket,
  servername: string,
  options: Pick<OpenOptions, "ca" | "connectTimeoutMs">,
): Promise<Tls.TLSSocket> =>
  new Promise((resolve, reject) => {
    const secure = Tls.connect({ socket: raw, host: servername, servername: sni(servername), ...caOption(options.ca) })
    const timer = setTimeout(() => {
      secure.destroy()
      reject(new Error(`startTls: no handshake after ${options.connectTimeoutMs} ms`))
    }, options.connectTimeoutMs)
    secure.once("secureConnect", () => {
      clearTimeout(timer)
      secure.off("error", onError)
      resolve(secure)
    })
    const onError = (error: Error) => {
      clearTimeout(timer)
      secure.destroy()
      reject(new Error(`startTls failed: ${error.message}`))
    }
    secure.once("error", onError)
  })

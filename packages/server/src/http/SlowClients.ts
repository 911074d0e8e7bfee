import type { IncomingMessage, Server, ServerOptions, ServerResponse } from "node:http"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { clientAddress, rateLimitBucket, type TrustProxy } from "./ClientAddress.js"

/**
 * Slow clients on the public routes. Node keeps a request whose body trickles in for 300 s by
 * default and lets one address hold any number of them: 200 webhook bodies sent a byte at a
 * time held 200 sockets and handlers. Three bounds, each configurable (docs/configuration.md):
 *
 * - Node's `headersTimeout` and `requestTimeout` for every request (408 and close past them).
 *   They bound receiving the request only, never the answer: a chat's SSE stream may last hours.
 * - A body deadline on the public routes (`/wh/…`, `/api/auth/…`): a request still receiving its
 *   body after it is closed without an answer (its sender is slow on purpose or broken).
 * - A cap on the requests one client has open at once on the public routes (429 past it).
 */

export interface SlowClientLimits {
  /** Seconds to receive a request's headers; default 15. */
  readonly headersTimeoutSeconds?: number | undefined
  /** Seconds to receive a whole request (headers and body), any route; default 120. */
  readonly requestTimeoutSeconds?: number | undefined
  /** Seconds to receive a public route's body; default 10. */
  readonly publicBodyTimeoutSeconds?: number | undefined
  /** Requests one client may have open on the public routes; default 10. */
  readonly publicMaxRequestsPerClient?: number | undefined
}

export const defaults = {
  headersTimeoutSeconds: 15,
  requestTimeoutSeconds: 120,
  publicBodyTimeoutSeconds: 10,
  publicMaxRequestsPerClient: 10,
} as const

const doubleSlashes = /\/{2,}/g

/** Routes anyone may call without a token, whose bodies are read before anything is proved. */
export const isPublicPath = (url: string) => {
  // Checked twice on every request: the common spelling without a copy of the URL.
  if (url.startsWith("/api/auth/") || url.startsWith("/wh/") || url.startsWith("/oauth/")) return true
  const path = url.toLowerCase().replace(doubleSlashes, "/")
  return path.startsWith("/wh/") || path.startsWith("/api/auth/") || path.startsWith("/oauth/")
}

/**
 * Whether a request has a body at all: HTTP/1.1 frames one only by `Content-Length` (non-zero)
 * or `Transfer-Encoding`. Node's parser rejects a request with neither that sends bytes anyway
 * as the start of the next request, so one without them cannot trickle a body.
 */
const hasBody = (request: IncomingMessage) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

/** Options of `http.createServer`. */
export const nodeOptions = (limits: SlowClientLimits): ServerOptions => {
  const headersTimeout = 1000 * (limits.headersTimeoutSeconds ?? defaults.headersTimeoutSeconds)
  const requestTimeout = 1000 * (limits.requestTimeoutSeconds ?? defaults.requestTimeoutSeconds)
  return {
    // Node requires headersTimeout ≤ requestTimeout.
    headersTimeout: Math.min(headersTimeout, requestTimeout),
    requestTimeout,
    // How often Node looks for expired requests: by default every 30 s, so a 15 s bound held 45 s.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, headersTimeout / 4)),
  }
}

/**
 * The body deadline of public routes, on the Node server itself: the body is read by whichever
 * handler runs, and a trickle defeats idle timeouts. Past the deadline the socket is destroyed
 * (the handler's read fails and its fiber ends); requests whose body has arrived are untouched.
 */
export const watchPublicBodies = (server: Server, limits: SlowClientLimits) => {
  const deadline = 1000 * (limits.publicBodyTimeoutSeconds ?? defaults.publicBodyTimeoutSeconds)
  server.on("request", (request: IncomingMessage, _response: ServerResponse) => {
    // A bodyless request (every GET of the authenticated `/api/auth/sessions`) needs no timer.
    if (request.complete || !hasBody(request) || !isPublicPath(request.url ?? "")) return
    const timer = setTimeout(() => {
      if (!request.complete) request.socket.destroy()
    }, deadline)
    timer.unref()
    const clear = () => clearTimeout(timer)
    request.once("end", clear)
    request.once("close", clear)
  })
}

/**
 * The per-client cap of open requests on public routes (its bucket as rate limits count it):
 * past it, 429 at once, the connection closed. A slot is held until the handler has answered.
 */
export const capLayer = (limits: SlowClientLimits & { readonly trustProxy: TrustProxy }) => {
  const max = limits.publicMaxRequestsPerClient ?? defaults.publicMaxRequestsPerClient
  const open = new Map<string, number>()
  const release = (bucket: string) => {
    const count = (open.get(bucket) ?? 1) - 1
    if (count <= 0) open.delete(bucket)
    else open.set(bucket, count)
  }
  // On every request: plain combinators, no generator.
  return HttpApiBuilder.middleware((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (!isPublicPath(request.url)) return app
      const bucket = rateLimitBucket(clientAddress(request, limits.trustProxy))
      const count = open.get(bucket) ?? 0
      if (count >= max) {
        return Effect.succeed(
          HttpServerResponse.unsafeJson(
            { error: "too many open requests from this client" },
            { status: 429, headers: { connection: "close", "retry-after": "10" } },
          ),
        )
      }
      open.set(bucket, count + 1)
      // Released when the answer is written or the client is gone: a listener on the response
      // costs a fraction of an `ensuring` around the app (an uninterruptible region per request).
      const response = NodeHttpServerRequest.toServerResponse(request) as ServerResponse | undefined
      // (Already closed: its `close` is gone, so the app's end releases it.)
      if (response === undefined || response.destroyed)
        return Effect.ensuring(
          app,
          Effect.sync(() => release(bucket)),
        )
      // `on`, not `once`: a response closes once, and `once` wraps and checks the listener again.
      response.on("close", () => release(bucket))
      return app
    }),
  )
}

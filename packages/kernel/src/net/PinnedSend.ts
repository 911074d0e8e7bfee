import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import { Readable } from "node:stream"
import type { CheckedTarget } from "./Target.js"

/** One HTTP exchange, without redirects, to an address already checked. */
export interface Hop {
  readonly method: string
  readonly headers: Headers
  readonly body: Uint8Array<ArrayBuffer> | undefined
  readonly signal: AbortSignal
}

/** Sends `hop` to `target`; the default opens a connection to the checked address itself. */
export type Send = (target: CheckedTarget, hop: Hop) => Promise<Response>

/** Statuses whose responses have no body, as `new Response` insists. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304])

export interface PinnedOptions {
  /** Certificate authorities trusted instead of Node's (a private PKI; tests). */
  readonly ca?: string | Array<string>
}

/**
 * Connects to `target.address`, never to what the name resolves to now: the name only goes into
 * `Host` and TLS SNI, so the certificate is still verified against it. A fresh connection per
 * hop (`agent: false`): a pooled one could have been opened for another pin.
 */
export const make =
  (options: PinnedOptions = {}): Send =>
  (target, hop) =>
    new Promise<Response>((resolve, reject) => {
      if (hop.signal.aborted) return reject(hop.signal.reason)
      const { url, host, address } = target
      const secure = url.protocol === "https:"
      const headers: Record<string, string> = Object.fromEntries(hop.headers)
      headers.host = url.host
      if (hop.body !== undefined) headers["content-length"] = String(hop.body.byteLength)
      const request = (secure ? Https : Http).request({
        host: address,
        port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: hop.method,
        headers,
        agent: false,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(secure && Net.isIP(host) === 0 ? { servername: host } : {}),
      })
      let incoming: Http.IncomingMessage | undefined
      const abort = () => {
        incoming?.destroy(hop.signal.reason)
        request.destroy(hop.signal.reason)
      }
      hop.signal.addEventListener("abort", abort, { once: true })
      request.on("error", (error) => {
        hop.signal.removeEventListener("abort", abort)
        // As fetch does: a network failure is a TypeError whose cause has the code (ECONNREFUSED…).
        reject(hop.signal.aborted ? hop.signal.reason : new TypeError("fetch failed", { cause: error }))
      })
      request.on("response", (response) => {
        incoming = response
        response.on("close", () => hop.signal.removeEventListener("abort", abort))
        const responseHeaders = new Headers()
        for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
          responseHeaders.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!)
        }
        const status = response.statusCode ?? 502
        const empty = nullBodyStatuses.has(status) || hop.method === "HEAD"
        if (empty) response.resume()
        resolve(
          new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
            status,
            statusText: response.statusMessage ?? "",
            headers: responseHeaders,
          }),
        )
      })
      request.end(hop.body)
    })

/** `make()` with Node's trusted certificate authorities. */
export const sendPinned: Send = make()

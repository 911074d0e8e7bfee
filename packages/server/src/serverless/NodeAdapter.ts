import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"

/** A Web-standard handler, as `Server.webHandler` returns and `export default { fetch }` modules hold. */
export type FetchHandler = (request: Request, context: { readonly remoteAddress?: string }) => Promise<Response>

const toRequest = (incoming: IncomingMessage, signal: AbortSignal): Request => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else headers.set(name, value)
  }
  const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`)
  const method = incoming.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(url, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit)
}

/**
 * Serves a fetch handler with Node's `http` module: the way to run a serverless module
 * (`export default { fetch }`) on a plain Node host, and how the tests run one. The response
 * body is written as it comes (SSE streams flush per event) with backpressure; a client that
 * goes away aborts the request's signal and cancels the body.
 *
 * @example
 * createServer(NodeAdapter.toNodeListener(app.fetch)).listen(4111)
 */
export const toNodeListener =
  (fetch: FetchHandler) =>
  async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const controller = new AbortController()
    outgoing.on("close", () => controller.abort())
    try {
      const remoteAddress = incoming.socket.remoteAddress
      const response = await fetch(
        toRequest(incoming, controller.signal),
        remoteAddress === undefined ? {} : { remoteAddress },
      )
      const headers: Record<string, string | Array<string>> = {}
      response.headers.forEach((value, name) => {
        if (name !== "set-cookie") headers[name] = value
      })
      const cookies = response.headers.getSetCookie()
      if (cookies.length > 0) headers["set-cookie"] = cookies
      outgoing.writeHead(response.status, response.statusText, headers)
      if (response.body === null) return void outgoing.end()
      const reader = response.body.getReader()
      outgoing.on("close", () => void reader.cancel().catch(() => {}))
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (!outgoing.write(value)) {
          await new Promise((resolve) => {
            outgoing.once("drain", resolve)
            outgoing.once("close", resolve)
          })
        }
      }
      outgoing.end()
    } catch {
      // The handler answers every error itself; this is a broken body or a client gone.
      if (!outgoing.headersSent) outgoing.writeHead(500).end()
      else outgoing.destroy()
    }
  }

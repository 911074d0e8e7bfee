import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * Local HTTP servers standing in for the internet in egress tests: one on 127.0.0.1 and one on
 * 127.0.0.2 at the same port, so a test can tell which address a connection really went to.
 */
export interface EgressServers {
  readonly port: number
  /** Requests seen per server address, as `address path`. */
  readonly hits: Array<string>
  /** Bytes the `/big` route has written so far. */
  readonly sent: { bytes: number }
  /** Responses of `/hold` waiting for `releaseHeld`, and the most held at once. */
  readonly held: { count: number; max: number }
  readonly releaseHeld: () => void
  readonly close: () => Promise<void>
}

const hundredMegabytes = 100 * 1024 * 1024

export const startEgressServers = async (): Promise<EgressServers> => {
  const hits: Array<string> = []
  const sent = { bytes: 0 }
  const held = { count: 0, max: 0 }
  let waiting: Array<Http.ServerResponse> = []
  const handler = (address: string) => (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fixture")
    hits.push(`${address} ${url.pathname}`)
    const to = url.searchParams.get("to")
    if (to !== null) {
      response.writeHead(302, { location: to })
      return response.end()
    }
    if (url.pathname === "/slow") return // never answers
    if (url.pathname === "/drip") {
      response.writeHead(200)
      return response.write("first chunk, then nothing")
    }
    if (url.pathname === "/declared") {
      response.writeHead(200, { "content-length": String(hundredMegabytes) })
      return response.write("x")
    }
    if (url.pathname === "/hold") {
      held.count++
      held.max = Math.max(held.max, held.count)
      waiting.push(response)
      return
    }
    if (url.pathname === "/big") {
      // Written as the client reads (drain), so what was sent measures what was pulled.
      const chunk = Buffer.alloc(64 * 1024, 120)
      response.writeHead(200, { "content-type": "application/octet-stream" })
      const pump = () => {
        while (sent.bytes < hundredMegabytes) {
          sent.bytes += chunk.length
          if (!response.write(chunk)) return void response.once("drain", pump)
        }
        response.end()
      }
      response.on("close", () => response.removeAllListeners("drain"))
      return pump()
    }
    response.writeHead(200, { "content-type": "text/plain" })
    response.end(`${address} ${url.pathname}`)
  }
  const first = Http.createServer(handler("127.0.0.1"))
  await new Promise<void>((resolve) => first.listen(0, "127.0.0.1", resolve))
  const port = (first.address() as AddressInfo).port
  const second = Http.createServer(handler("127.0.0.2"))
  await new Promise<void>((resolve) => second.listen(port, "127.0.0.2", resolve))
  const close = (server: Http.Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    port,
    hits,
    sent,
    held,
    releaseHeld: () => {
      for (const response of waiting) response.end("released")
      held.count = 0
      waiting = []
    },
    close: async () => {
      await Promise.all([close(first), close(second)])
    },
  }
}

import * as Net from "node:net"

/**
 * A TCP proxy on loopback in front of `target`, that a test closes (every connection cut, new
 * ones refused) and opens again on the same port: PostgreSQL "going down" without touching the
 * shared server.
 */
export interface TcpProxy {
  readonly port: number
  /** Cuts every connection and stops accepting new ones. */
  readonly down: () => Promise<void>
  /** Accepts connections again, on the same port. */
  readonly up: () => Promise<void>
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const sockets = new Set<Net.Socket>()
  const server = Net.createServer((client) => {
    const upstream = Net.connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve()
      })
    })
  await listen(0)
  const port = (server.address() as Net.AddressInfo).port
  const down = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      for (const socket of sockets) socket.destroy()
    })
  return { port, down, up: () => listen(port), close: down }
}

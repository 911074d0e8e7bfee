import { connect, createServer, type Socket } from "node:net"
import { type AideClientOptions, createAideClient } from "@aide/client"
import { RateLimiter } from "@aide/kernel"
import { Effect, Layer } from "effect"
import { type ChatTestServer, startChatServer } from "../../server/test/support/chat.js"
import { password, type StartOptions } from "../../server/test/support/server.js"

export { password }
export type { ChatTestServer }

/** These suites sign in many times a minute: every request gets through the rate limiter. */
export const unlimited = Layer.succeed(
  RateLimiter.RateLimiter,
  RateLimiter.RateLimiter.of({
    consume: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
    peek: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
  }),
)

/** The real server (fake model behind it) and a client signed in to it. */
export const startWithClient = async (options: StartOptions = {}, clientOptions: Partial<AideClientOptions> = {}) => {
  const server = await startChatServer({ ...options, kernel: { rateLimiter: unlimited, ...options.kernel } })
  const client = createAideClient({ baseUrl: server.url, ...clientOptions })
  await client.auth.login(password)
  return { server, client }
}

/**
 * A TCP relay in front of `target` whose connections can be cut at will: a dropped connection
 * as the client sees it (the socket dies mid-body), not a simulated error.
 */
export const startRelay = async (target: string) => {
  const { hostname, port } = new URL(target)
  const sockets = new Set<Socket>()
  const relay = createServer((client) => {
    const server = connect(Number(port), hostname)
    for (const socket of [client, server]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => {})
    }
    client.pipe(server)
    server.pipe(client)
  })
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve))
  const address = relay.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Destroys every open connection through the relay. */
    cut: () => {
      for (const socket of sockets) socket.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        relay.close(() => resolve())
      }),
  }
}

import { randomUUID } from "node:crypto"
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer, textOfChunks } from "./support/chat.js"

/**
 * Redis between the server and the real one is a TCP proxy the test opens and closes: Redis
 * "goes down" for this server only (the shared Redis server is never stopped).
 */
const redisPort = 6379
const startProxy = async (port = 0) => {
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = createConnection(redisPort)
    sockets.add(client).add(upstream)
    client.pipe(upstream).pipe(client)
    const drop = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  const address = server.address()
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** `EXISTS key` on the real Redis, in RESP (the server package does not depend on a client). */
const exists = (key: string) =>
  new Promise<number>((resolve, reject) => {
    const socket = createConnection(redisPort, "127.0.0.1")
    socket.once("error", reject)
    socket.once("data", (data) => {
      socket.destroy()
      resolve(Number(/^:(\d+)/.exec(data.toString())?.[1] ?? Number.NaN))
    })
    socket.write(`*2\r\n$6\r\nEXISTS\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`)
  })

describe("Redis away", () => {
  const keyPrefix = `aide-test:${randomUUID()}:`
  let proxy: Awaited<ReturnType<typeof startProxy>>
  let server: ChatTestServer

  beforeAll(async () => {
    proxy = await startProxy()
    server = await startChatServer({
      redisUrl: Option.some(Redacted.make(`redis://127.0.0.1:${proxy.port}`)),
      redisKeyPrefix: keyPrefix,
    })
  })
  afterAll(async () => {
    await server?.close()
    await proxy?.close()
  })

  const answer = async (text: string) => {
    server.model.script({ text: ["Still ", "here."] })
    const response = await chat(server, text)
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    expect(textOfChunks(chunksOf(await response.text()))).toBe("Still here.")
    return threadId
  }

  it("the stream goes to Redis while it is reachable", async () => {
    const threadId = await answer("hello")
    expect(await exists(`${keyPrefix}stream:${threadId}`)).toBe(1)
  })

  it("chat still answers while Redis is away, and the server uses Redis again once it is back", async () => {
    const { port } = proxy
    await proxy.close()
    const offline = await answer("are you there?")
    expect(await exists(`${keyPrefix}stream:${offline}`)).toBe(0)
    proxy = await startProxy(port)
    // ioredis reconnects by itself (within 2 s): a later run's stream is in Redis again.
    await eventually(
      async () => {
        const threadId = await answer("and now?")
        return (await exists(`${keyPrefix}stream:${threadId}`)) === 1 ? true : undefined
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    )
  })
})

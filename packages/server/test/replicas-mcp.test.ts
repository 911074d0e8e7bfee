import { PostgresStorage } from "@aide/kernel/postgres"
import { createTestDatabase } from "@aide/testing/effect"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/chat.js"
import { password, request, startServer, type TestServer } from "./support/server.js"

const redisUrl = process.env.AIDE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/**
 * Two replicas on one PostgreSQL database and one Redis: an MCP session opened on A continues on
 * B (B restores it from `mcp_sessions`: the client's capabilities, its subscriptions), as behind
 * a load balancer without sticky sessions.
 */
describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("an MCP session across replicas", () => {
  let drop: () => Promise<void>
  const servers: Array<TestServer> = []
  let token: string

  beforeAll(async () => {
    const database = await createTestDatabase()
    drop = database.drop
    const url = Redacted.make(database.url)
    const start = () =>
      startServer({
        databaseUrl: Option.some(url),
        redisUrl: Option.some(Redacted.make(redisUrl)),
        redisKeyPrefix: `mcp-replicas-${process.pid}:`,
        replicas: "many",
        jwtSecret: Option.some(Redacted.make("replica-test-secret-0123456789abcdef0123456789")),
        kernel: { storage: PostgresStorage.layer({ url }) },
      })
    servers.push(await start())
    token = (await request(`${servers[0]!.url}/api/auth/setup`, { body: { password } })).body.token
    await request(`${servers[0]!.url}/api/config`, {
      method: "PATCH",
      token,
      body: { mcpServer: { enabled: true, tools: ["memory_read", "memory_update"] } },
    })
    servers.push(await start())
  })
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {})
    await drop?.()
  })

  const transportTo = (server: TestServer, sessionId?: string) =>
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(sessionId === undefined ? {} : { sessionId }),
    })

  it("a session started on A continues on B, its subscription too", async () => {
    const [a, b] = servers as [TestServer, TestServer]
    const onA = new Client({ name: "roaming", version: "1" })
    const first = transportTo(a)
    await onA.connect(first)
    await onA.subscribeResource({ uri: "aide://memory/working" })
    const sessionId = first.sessionId!
    await first.close()

    const onB = new Client({ name: "roaming", version: "1" })
    const updated: Array<string> = []
    onB.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri)
    })
    const second = transportTo(b, sessionId)
    await onB.connect(second)
    // A client resuming a session skips initialize, so the SDK opens no listening stream by
    // itself: it reopens it (GET /mcp, here without a Last-Event-ID) to hear resource updates.
    await second.resumeStream("")
    try {
      expect(second.sessionId).toBe(sessionId)
      const written = await onB.callTool({ name: "memory_update", arguments: { content: "Written on B." } })
      expect(written.structuredContent).toEqual({ content: "Written on B." })
      // B restored the subscription made on A: the change reaches the client through B.
      await eventually(() => (updated.includes("aide://memory/working") ? true : undefined), { timeoutMs: 10_000 })
      // And A still serves the same session.
      const back = new Client({ name: "roaming", version: "1" })
      await back.connect(transportTo(a, sessionId))
      expect((await back.callTool({ name: "memory_read", arguments: {} })).structuredContent).toMatchObject({
        workingMemory: "Written on B.",
      })
      await back.close()
    } finally {
      await onB.close()
    }
  })
})

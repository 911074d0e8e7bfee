import { PostgresStorage } from "@aide/kernel/postgres"
import { createTestDatabase } from "@aide/testing/effect"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "./support/server.js"
import { startTcpProxy, type TcpProxy } from "./support/tcpProxy.js"

/**
 * PostgreSQL out of reach (a TCP proxy in front of it, closed): requests that need the database
 * answer 503 with Retry-After within the pool's acquire timeout, never hang, and the server
 * recovers by itself once the database is back.
 */
describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("PostgreSQL down", () => {
  let proxy: TcpProxy
  let server: TestServer
  let drop: () => Promise<void>
  let token: string

  beforeAll(async () => {
    const database = await createTestDatabase()
    drop = database.drop
    const direct = new URL(database.url)
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    direct.host = `127.0.0.1:${proxy.port}`
    const url = Redacted.make(direct.toString())
    server = await startServer({
      databaseUrl: Option.some(url),
      databaseTimeoutSeconds: 1,
      kernel: { storage: PostgresStorage.layer({ url, acquireTimeout: "1 second" }) },
    })
    token = (await setup(server)).token
  })

  afterAll(async () => {
    await proxy?.up().catch(() => {})
    await server?.close()
    await proxy?.close()
    await drop?.()
  })

  it("answers 503 with Retry-After within the acquire timeout, and recovers by itself", async () => {
    expect((await request(`${server.url}/api/threads`, { token })).status).toBe(200)
    await proxy.down()
    // (GET /api/config is served from memory: it keeps answering.)
    for (const path of ["/api/threads", "/api/inbox"]) {
      const started = Date.now()
      const answer = await request(`${server.url}${path}`, { token })
      expect(answer.status, path).toBe(503)
      expect(answer.headers.get("retry-after")).toBe("5")
      expect(answer.body).toEqual({ error: "storage_unavailable" })
      // The acquire timeout is 1 s; a connection refused fails sooner still.
      expect(Date.now() - started).toBeLessThan(3000)
    }
    await proxy.up()
    let status = 0
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await request(`${server.url}/api/threads`, { token })).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(status).toBe(200)
  })
})

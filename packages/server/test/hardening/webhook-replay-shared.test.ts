import { createHmac, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PostgresStorage } from "@aide/kernel/postgres"
import { createTestDatabase, postgresAvailable } from "@aide/testing/effect"
import { Option, Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type ChatTestServer, enableWebhookChannel, eventually, startChatServer } from "../support/chat.js"
import type { StartOptions } from "../support/server.js"

/**
 * Issue 32, item 10: replay protection was one process's memory, so a signed webhook request
 * accepted once passed again after a restart, or on another replica. The signed-webhook plugin
 * (a real plugin process) runs on each server; the second server refuses what the first accepted.
 */
const secret = "replay-shared-secret"
const sign = (text: string) => `sha256=${createHmac("sha256", secret).update(text).digest("hex")}`
const redisUrl = process.env.AIDE_TEST_REDIS_URL

/** A server with the webhook plugin enabled (its config may already be in the shared store) and loaded. */
const startWebhookServer = async (options: StartOptions & { readonly dataDir: string }) => {
  const server = await startChatServer(options)
  await enableWebhookChannel(server, secret)
  return server
}

/** One signed request (timestamp now), sent as is to any server. */
const signedRequest = (conversationId: string) => {
  const body = JSON.stringify({ conversationId, text: "Do it once" })
  const timestamp = String(Math.floor(Date.now() / 1000))
  const headers = { "x-aide-signature": sign(`${timestamp}.${body}`), "x-aide-timestamp": timestamp }
  return (server: ChatTestServer) =>
    fetch(`${server.url}/wh/webhook/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    })
}

const accepted = async (server: ChatTestServer, response: Response) => {
  expect(response.status).toBe(202)
  await eventually(() => (server.model.requests.length > 0 ? true : undefined), { timeoutMs: 10_000 })
}

const refused = async (server: ChatTestServer, response: Response) => {
  expect(response.status).toBe(409)
  expect(await response.json()).toEqual({ error: "replayed" })
  expect(server.model.requests).toHaveLength(0)
}

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-replay-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe("webhook replays outlive the process that accepted them", () => {
  it("on SQLite, a request accepted before a restart is refused after it (same data dir)", async () => {
    const dataDir = tempDir()
    const send = signedRequest(`restart-${randomUUID()}`)
    const before = await startWebhookServer({ dataDir })
    try {
      await accepted(before, await send(before))
    } finally {
      await before.close()
    }
    const after = await startWebhookServer({ dataDir })
    try {
      await refused(after, await send(after))
    } finally {
      await after.close()
    }
  }, 90_000)

  describe.skipIf(!postgresAvailable)("on PostgreSQL", () => {
    it("a request accepted by one server is refused by another on the same database", async () => {
      const database = await createTestDatabase()
      const shared = (): StartOptions & { readonly dataDir: string } => ({
        dataDir: tempDir(),
        databaseUrl: Option.some(Redacted.make(database.url)),
        kernel: { storage: PostgresStorage.layer({ url: Redacted.make(database.url) }) },
      })
      const servers: Array<ChatTestServer> = []
      try {
        const first = await startWebhookServer(shared())
        servers.push(first)
        const second = await startWebhookServer(shared())
        servers.push(second)
        const send = signedRequest(`pg-${randomUUID()}`)
        await accepted(first, await send(first))
        await refused(second, await send(second))
      } finally {
        for (const server of servers) await server.close()
        await database.drop()
      }
    }, 90_000)
  })

  describe.skipIf(redisUrl === undefined)("with Redis", () => {
    it("a request accepted by one server is refused by another sharing the Redis (each on its own SQLite)", async () => {
      const redis = {
        redisUrl: Option.some(Redacted.make(redisUrl ?? "")),
        redisKeyPrefix: `aide-test:${randomUUID()}:`,
      }
      const servers: Array<ChatTestServer> = []
      try {
        const first = await startWebhookServer({ dataDir: tempDir(), ...redis })
        servers.push(first)
        const second = await startWebhookServer({ dataDir: tempDir(), ...redis })
        servers.push(second)
        const send = signedRequest(`redis-${randomUUID()}`)
        await accepted(first, await send(first))
        await refused(second, await send(second))
      } finally {
        for (const server of servers) await server.close()
      }
    }, 90_000)
  })
})

import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PasswordHasher, TitleGenerator } from "@aide/kernel"
import { Server, ServerConfig } from "@aide/server"
import { FakeModelServer } from "@aide/testing"
import { createTestDatabase } from "@aide/testing/effect"
import { ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  activeStreamIds,
  type ChatTestServer,
  eventually,
  isChunk,
  postChat,
  resume,
  sseReader,
  textOfChunks,
} from "./support/chat.js"
import { password, request, setup } from "./support/server.js"

/**
 * Two replicas of the real server on one PostgreSQL database and one Redis (a key prefix of
 * their own), as `AIDE_REPLICAS=many` runs them: what one does, the other sees.
 */
const redisUrl = process.env.AIDE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

interface Replica {
  readonly url: string
  readonly close: () => Promise<void>
}

const startReplica = async (databaseUrl: string, keyPrefix: string, modelUrl: string): Promise<Replica> => {
  const dataDir = mkdtempSync(join(tmpdir(), "aide-replica-"))
  const runtime = ManagedRuntime.make(
    Server.layer({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      databaseUrl: Option.some(Redacted.make(databaseUrl)),
      redisUrl: Option.some(Redacted.make(redisUrl)),
      redisKeyPrefix: keyPrefix,
      replicas: "many",
      // One key for the fleet: a token from A is valid on B.
      jwtSecret: Option.some(Redacted.make("replicas-test-secret-of-at-least-32-bytes")),
      // Tells the rate-limit test's clients apart by X-Forwarded-For.
      trustProxy: { _tag: "Hops", hops: 1 },
      maxBodyBytes: ServerConfig.defaultMaxBodyBytes,
      chatMaxBodyBytes: ServerConfig.defaultChatMaxBodyBytes,
      env: { OPENAI_COMPATIBLE_BASE_URL: modelUrl },
      kernel: {
        passwordHasher: PasswordHasher.layerTest,
        chat: { maxRetries: 0 },
        titles: TitleGenerator.layerFallback,
      },
    }),
  )
  const url = await runtime.runPromise(Server.baseUrl)
  return {
    url,
    close: async () => {
      await runtime.dispose()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

describe.skipIf(process.env.AIDE_TEST_DATABASE_URL === undefined)("two replicas on PostgreSQL and Redis", () => {
  let database: { readonly url: string; readonly drop: () => Promise<void> }
  let model: FakeModelServer
  let a: ChatTestServer
  let b: ChatTestServer
  let replicas: Array<Replica> = []

  beforeAll(async () => {
    database = await createTestDatabase()
    model = await FakeModelServer.start()
    const keyPrefix = `aide-test:${randomUUID()}:`
    // One after the other: the second finds the schema migrated.
    replicas = [await startReplica(database.url, keyPrefix, model.url)]
    replicas.push(await startReplica(database.url, keyPrefix, model.url))
    const [first, second] = replicas as [Replica, Replica]
    const { token } = await setup({ url: first.url } as never)
    const operator = { models: { operator: { provider: "openai-compatible", model: "fake-model" } } }
    expect((await request(`${first.url}/api/config`, { method: "PATCH", token, body: operator })).status).toBe(200)
    const common = { dataDir: "", run: () => Promise.reject(new Error("not here")), model, token }
    a = { ...common, url: first.url, close: first.close }
    b = { ...common, url: second.url, close: second.close }
    // B serves the operator model A configured (the change reached it).
    await eventually(async () => {
      const config = await request(`${b.url}/api/config`, { token })
      return config.body.models.operator.provider === "openai-compatible" ? true : undefined
    })
  })

  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await model?.close()
    await database?.drop()
  })

  // Each login from an address of its own: the login limit (5 a minute) is the last test's.
  let logins = 0
  const login = async (replica: { url: string }) => {
    const headers = { "x-forwarded-for": `198.51.100.${++logins}` }
    const response = await request(`${replica.url}/api/auth/login`, { body: { password }, headers })
    expect(response.status).toBe(200)
    return response.body.token as string
  }
  const status = async (replica: { url: string }, token: string) =>
    (await request(`${replica.url}/api/auth/sessions`, { token })).status

  it("a session revoked on one replica is refused by the other on its next request", async () => {
    for (const [revoker, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const token = await login(other)
      // Both replicas have seen the session active (and remember it).
      expect(await status(revoker, token)).toBe(200)
      expect(await status(other, token)).toBe(200)
      expect((await request(`${revoker.url}/api/auth/logout`, { method: "POST", token })).status).toBe(200)
      expect(await status(other, token)).toBe(401)
      expect(await status(revoker, token)).toBe(401)
    }
  })

  it("revoking every session on B logs out a session A remembered", async () => {
    const token = await login(a)
    expect(await status(a, token)).toBe(200)
    const revoked = await request(`${b.url}/api/auth/sessions`, { method: "DELETE", token })
    expect(revoked.status).toBe(200)
    expect(await status(a, token)).toBe(401)
    // The suite's own session went too.
    const fresh = await login(b)
    a = { ...a, token: fresh }
    b = { ...b, token: fresh }
  })

  it("a chat started on A is resumed on B mid-answer: no gap, no duplicate", async () => {
    const story = ["Once ", "upon ", "a ", "time ", "there ", "was ", "a ", "stream."]
    model.script({ text: story, chunkDelayMs: 80 })
    const onA = a
    const onB = b
    const response = await postChat(onA, { parts: [{ type: "text", text: "Tell me a story" }] })
    const threadId = response.headers.get("x-thread-id")!
    const seenOnA = sseReader(response)
    const second = await seenOnA.until((event) => event.data.includes('"text-delta"') && event.data.includes("upon"))
    expect(await activeStreamIds(onA)).toContain(threadId)
    expect(await activeStreamIds(onB)).toContain(threadId)
    await seenOnA.cancel()
    const lastId = Number(second.id)
    const resumed = sseReader(await resume(onB, threadId, lastId))
    const rest = await resumed.rest()
    const restIds = rest.filter((event) => event.id !== undefined && event.id !== "").map((event) => Number(event.id))
    expect(restIds[0]).toBe(lastId + 1)
    expect(restIds).toEqual(restIds.map((_, i) => lastId + 1 + i))
    const before = seenOnA.events.filter((event) => Number(event.id) <= lastId)
    const chunks = [...before, ...rest]
      .filter((event) => event.data !== "[DONE]")
      .map((event) => JSON.parse(event.data))
    expect(textOfChunks(chunks)).toBe(story.join(""))
    await eventually(async () => ((await activeStreamIds(onB)).includes(threadId) ? undefined : true))
    expect(await activeStreamIds(onA)).not.toContain(threadId)
    expect(isChunk("finish")(rest.at(-2)!)).toBe(true)
  })

  it("rate limits are counted once for the fleet: the 6th wrong login, alternating, is refused", async () => {
    const client = { "x-forwarded-for": "203.0.113.7" }
    const statuses: Array<number> = []
    for (let i = 0; i < 6; i++) {
      const replica = i % 2 === 0 ? a : b
      const response = await request(`${replica.url}/api/auth/login`, {
        body: { password: "wrong password, surely" },
        headers: client,
      })
      statuses.push(response.status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })

  it("a config change made on A is served by B within a second", async () => {
    const started = Date.now()
    const patched = await request(`${a.url}/api/config`, {
      method: "PATCH",
      token: a.token,
      body: { timezone: "Asia/Tokyo" },
    })
    expect(patched.status).toBe(200)
    await eventually(
      async () =>
        (await request(`${b.url}/api/config`, { token: b.token })).body.timezone === "Asia/Tokyo" ? true : undefined,
      { timeoutMs: 1_000 },
    )
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it("a task created on B is listed by A's scheduler within a second, with its next run", async () => {
    const created = await request(`${b.url}/api/schedule`, {
      method: "POST",
      token: b.token,
      body: { name: "Digest", prompt: "Summarise", cron: "0 8 * * *", timezone: "Europe/Berlin", enabled: false },
    })
    expect(created.status).toBe(201)
    const listed = await eventually(
      async () => {
        const tasks = (await request(`${a.url}/api/schedule`, { token: a.token })).body.tasks as Array<{ id: string }>
        return tasks.find((task) => task.id === created.body.id)
      },
      { timeoutMs: 1_000 },
    )
    expect(listed).toEqual(created.body)
  })
})

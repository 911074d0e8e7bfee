import { createECDH, randomBytes } from "node:crypto"
import { createAideClient } from "@aide/client"
import { Inbox } from "@aide/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, startWithClient } from "./support.js"

/** Every method of docs/client.md, against the real server: the examples there are these calls. */
let server: ChatTestServer
let client: ReturnType<typeof createAideClient>
beforeAll(async () => {
  ;({ server, client } = await startWithClient())
})
afterAll(() => server.close())

const drain = async (chunks: AsyncIterable<unknown>) => {
  for await (const _ of chunks);
}

describe("client.threads", () => {
  it("list, get, fork, rename, remove", async () => {
    const { threadId, chunks } = await client.chat.send({ text: "First", messageId: "m-1" })
    await drain(chunks)
    const second = await client.chat.send({ text: "Second", threadId, messageId: "m-2" })
    await drain(second.chunks)

    const { threads, total } = await client.threads.list({ page: 0, perPage: 10 })
    expect(threads.map((thread) => thread.id)).toContain(threadId)
    expect(total).toBeGreaterThan(0)

    const detail = await client.threads.get(threadId)
    expect(detail.messages).toHaveLength(4)

    const fork = await client.threads.fork(threadId, "m-2")
    expect(fork.clonedMessageCount).toBe(2)

    const renamed = await client.threads.rename(threadId, "Renamed")
    expect(renamed.title).toBe("Renamed")

    expect(await client.threads.remove(fork.thread.id)).toEqual({ success: true })
    await expect(client.threads.get(fork.thread.id)).rejects.toMatchObject({ status: 404, code: "Thread not found" })
  })
})

describe("client.config", () => {
  it("get and patch", async () => {
    const config = await client.config.get()
    expect(config.timezone).toBe("UTC")
    const patched = await client.config.patch({ identity: { name: "Jarvis" } })
    expect(patched.identity.name).toBe("Jarvis")
    await expect(client.config.patch({ timezone: "Not/AZone" } as never)).rejects.toMatchObject({ status: 400 })
  })
})

describe("client.schedule", () => {
  it("create, list, get, update, remove, destinations, heartbeat", async () => {
    const task = await client.schedule.create({ name: "Daily", prompt: "Summarise my inbox", cron: "0 9 * * *" })
    expect(task.nextRun).not.toBeNull()
    expect((await client.schedule.list()).tasks.map((t) => t.id)).toContain(task.id)
    expect((await client.schedule.get(task.id)).name).toBe("Daily")
    const updated = await client.schedule.update(task.id, { runAt: "2099-01-01T09:00:00Z" })
    expect(updated.cron ?? undefined).toBeUndefined()
    expect(await client.schedule.remove(task.id)).toEqual({ deleted: task.id })
    expect(await client.schedule.destinations()).toContain("Web Inbox")
    const heartbeat = await client.schedule.updateHeartbeat({
      enabled: true,
      tasks: [{ description: "Check the calendar" }],
    })
    expect(heartbeat.tasks.map((item) => item.description)).toEqual(["Check the calendar"])
    expect((await client.schedule.heartbeat()).enabled).toBe(true)
  })
})

describe("client.inbox", () => {
  it("list, get, update, remove", async () => {
    const seeded = await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) => inbox.create({ subject: "Hello", body: "body", destination: "web" })),
    )
    const messages = await client.inbox.list()
    expect(messages.map((message) => message.id)).toContain(seeded.id)
    expect((await client.inbox.get(seeded.id)).subject).toBe("Hello")
    expect((await client.inbox.update(seeded.id, { read: true, archived: true })).read).toBe(true)
    expect((await client.inbox.list({ archived: true })).map((message) => message.id)).toContain(seeded.id)
    expect(await client.inbox.remove(seeded.id)).toEqual({ deleted: seeded.id })
  })
})

describe("client.memory", () => {
  it("working, setWorking, observations, record", async () => {
    await client.memory.setWorking("# Owner\n- likes tea")
    expect((await client.memory.working()).content).toBe("# Owner\n- likes tea")
    expect(await client.memory.observations()).toHaveProperty("observations")
    expect(await client.memory.record()).toHaveProperty("record")
  })
})

describe("client.plugins, client.models, client.mcpServers", () => {
  it("list", async () => {
    expect(Array.isArray(await client.plugins.list())).toBe(true)
    expect((await client.models.list()).map((provider) => provider.id)).toContain("openai-compatible")
    expect(await client.mcpServers.list()).toEqual([])
  })

  it("models.connections, connect, test, disconnect", async () => {
    // The test server's environment sets openai-compatible: it wins, and the test lists its models.
    expect(await client.models.connections()).toEqual({ connections: [], environment: ["openai-compatible"] })
    expect(await client.models.test("openai-compatible")).toMatchObject({ ok: true, listed: true })
    const connected = await client.models.connect("openai", { OPENAI_API_KEY: "sk-surface-test-0000000000" })
    expect(connected.variables).toEqual([{ name: "OPENAI_API_KEY", hint: "••••0000" }])
    expect(await client.models.disconnect("openai")).toEqual({ success: true })
  })
})

describe("client.push", () => {
  it("vapidPublicKey, subscribe, unsubscribe", async () => {
    const key = await client.push.vapidPublicKey()
    expect(Buffer.from(key, "base64url").byteLength).toBe(65)
    const ecdh = createECDH("prime256v1")
    const endpoint = "https://push.example/send/abc"
    const keys = { p256dh: ecdh.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") }
    expect(await client.push.subscribe({ endpoint, keys })).toEqual({ subscribed: true })
    expect(await client.push.unsubscribe(endpoint)).toEqual({ unsubscribed: true })
    await expect(client.push.unsubscribe(endpoint)).rejects.toMatchObject({ status: 404 })
  })
})

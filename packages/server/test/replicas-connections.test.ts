import { randomBytes, randomUUID } from "node:crypto"
import { FakeModelServer } from "@aide/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chunksOf } from "./support/chat.js"
import { ensureBuilt } from "./support/process.js"
import { type Replica, type Replicas, startReplicas } from "./support/replicas.js"
import { password, request } from "./support/server.js"

const redisUrl = process.env.AIDE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/**
 * Two real `aide-server` processes on one PostgreSQL database and one Redis, as
 * `AIDE_REPLICAS=many` runs them: a provider connection added, replaced or removed on A is what
 * B's next chat uses, with no restart and no wait.
 */
describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("provider connections across replicas", () => {
  let model: FakeModelServer
  let cluster: Replicas
  let a: Replica
  let b: Replica
  let token: string

  beforeAll(async () => {
    await ensureBuilt()
    model = await FakeModelServer.start()
    // No provider in the environment: the connection is the only way to the model server.
    cluster = await startReplicas(2, {
      REDIS_URL: redisUrl,
      AIDE_REDIS_PREFIX: `connections-${randomUUID()}:`,
      AIDE_REPLICAS: "many",
    })
    ;[a, b] = cluster.replicas as [Replica, Replica]
    const setup = await request(`${a.url}/api/auth/setup`, { body: { password } })
    expect(setup.status).toBe(201)
    token = setup.body.token
  }, 300_000)
  afterAll(async () => {
    await cluster?.close()
    await model?.close()
  })

  const connect = (replica: Replica, key: string) =>
    request(`${replica.url}/api/models/connections/openai-compatible`, {
      method: "PUT",
      token,
      body: { values: { OPENAI_COMPATIBLE_BASE_URL: model.url, OPENAI_COMPATIBLE_API_KEY: key } },
    })
  const chat = async (replica: Replica, text: string) => {
    const response = await fetch(`${replica.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text }] }),
    })
    const body = await response.text()
    const answer = response.ok
      ? chunksOf(body)
          .filter((chunk) => chunk.type === "text-delta")
          .map((chunk) => chunk.delta)
          .join("")
      : body
    return { status: response.status, answer }
  }
  /** The turn for the chat carrying `text` (titles asked meanwhile take the default one). */
  const answer = (text: string, reply: string) =>
    model.script({ match: (r) => JSON.stringify(r.body.messages).includes(text), text: reply })
  /** The key the model server was called with for the chat turn carrying `text`. */
  const keyUsedFor = (text: string) =>
    model.requests.find((recorded) => JSON.stringify(recorded.body.messages).includes(text))?.headers.authorization

  it("a connection added on A serves B's next chat; replaced, B uses the new key; removed, B refuses", async () => {
    // Both replicas answer "not configured" first (and the operator model is set on A).
    const operator = { provider: "openai-compatible", model: "fake-model" }
    const patched = await request(`${a.url}/api/config`, { method: "PATCH", token, body: { models: { operator } } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const before = await chat(b, "before any connection")
    expect(before.status).toBe(409)
    expect(model.requests).toHaveLength(0)

    const first = `sk-first-${randomBytes(12).toString("hex")}`
    expect((await connect(a, first)).status).toBe(200)
    answer("added on A", "Served by B.")
    // At once: no poll, no wait between A's answer and B's chat.
    expect(await chat(b, "added on A")).toEqual({ status: 200, answer: "Served by B." })
    expect(keyUsedFor("added on A")).toBe(`Bearer ${first}`)

    const second = `sk-second-${randomBytes(12).toString("hex")}`
    expect((await connect(a, second)).status).toBe(200)
    answer("replaced on A", "With the new key.")
    expect(await chat(b, "replaced on A")).toEqual({ status: 200, answer: "With the new key." })
    expect(keyUsedFor("replaced on A")).toBe(`Bearer ${second}`)

    // B lists the connection (masked) and the provider as configured.
    const listed = await request(`${b.url}/api/models/connections`, { token })
    expect(listed.body.connections).toEqual([
      expect.objectContaining({ provider: "openai-compatible", readable: true }),
    ])
    expect(JSON.stringify(listed.body)).not.toContain(second)

    const removed = await request(`${a.url}/api/models/connections/openai-compatible`, { method: "DELETE", token })
    expect(removed).toMatchObject({ status: 200, body: { success: true } })
    const requestsBefore = model.requests.length
    const after = await chat(b, "removed on A")
    expect(after.status).toBe(409)
    expect(after.answer).toContain("OPENAI_COMPATIBLE_BASE_URL")
    const providers = (await request(`${b.url}/api/models`, { token })).body.providers as Array<{
      id: string
      configured: boolean
    }>
    expect(providers.find((provider) => provider.id === "openai-compatible")?.configured).toBe(false)
    // B called nobody with the removed key (titles of earlier threads may still have been asked).
    expect(keyUsedFor("removed on A")).toBeUndefined()
    expect(model.requests.slice(requestsBefore).every((r) => !JSON.stringify(r.body).includes("removed on A"))).toBe(
      true,
    )
  }, 120_000)

  it("a connection added on B serves A's next chat the same way", async () => {
    const key = `sk-back-${randomBytes(12).toString("hex")}`
    expect((await connect(b, key)).status).toBe(200)
    answer("added on B", "Served by A.")
    expect(await chat(a, "added on B")).toEqual({ status: 200, answer: "Served by A." })
    expect(keyUsedFor("added on B")).toBe(`Bearer ${key}`)
  }, 60_000)
})

import { TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postChat, startChatServer } from "./support/chat.js"
import { request, setup, startServer, type TestServer } from "./support/server.js"

const text = (value: string) => ({ parts: [{ type: "text", text: value }] })

describe("the operator model when the owner chose none", () => {
  let model: FakeModelServer
  let server: TestServer
  let token: string
  beforeAll(async () => {
    model = await FakeModelServer.start()
    // Only an OpenAI-compatible server is configured: the catalogue's default (OpenAI) is not.
    server = await startServer({
      env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
      kernel: { chat: { maxRetries: 0 }, titles: TitleGenerator.layerFallback },
    })
    token = (await setup(server)).token
  })
  afterAll(async () => {
    await server.close()
    await model.close()
  })

  it("is a configured provider's model, and the first message is answered", async () => {
    const config = await request(`${server.url}/api/config`, { token })
    expect(config.body.models.operator).toEqual({ provider: "openai-compatible", model: "fake-model" })
    model.script({ text: "Hello from the default." })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(text("Hi")),
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('"delta":"default."')
  })

  it("stays the owner's choice once one is made, and comes back when it is deleted", async () => {
    const chosen = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { models: { operator: { provider: "openai", model: "gpt-4.1" } } },
    })
    expect(chosen.body.models.operator).toEqual({ provider: "openai", model: "gpt-4.1" })
    const reset = await request(`${server.url}/api/config`, { method: "PATCH", token, body: { models: null } })
    expect(reset.body.models.operator).toEqual({ provider: "openai-compatible", model: "fake-model" })
  })
})

describe("a chat with a model that is not configured", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ env: {}, kernel: { chat: { maxRetries: 0 } } })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it("is a 409 naming the variable to set, and stores nothing", async () => {
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(text("Hi")),
    })
    expect(response.status).toBe(409)
    const body = await response.json()
    expect(body.error).toMatch(/provider openai is not configured: set OPENAI_API_KEY/)
    const threadId = response.headers.get("x-thread-id")!
    expect((await request(`${server.url}/api/threads/${threadId}`, { token })).status).toBe(404)
  })
})

describe("sending a failed message again", () => {
  it("answers it in the same thread, without a copy of the message and without a branch", async () => {
    const server = await startChatServer()
    try {
      server.model.script({ error: { status: 400, message: "the model refused" } }, { text: "Second time lucky." })
      const first = await postChat(server, { ...text("Try me"), messageId: "m-1" })
      expect(first.status).toBe(500)
      const threadId = first.headers.get("x-thread-id")!
      const again = await postChat(server, { ...text("Try me"), threadId, messageId: "m-1" })
      expect(again.status).toBe(200)
      expect(await again.text()).toContain('"delta":"lucky."')
      const detail = await request(`${server.url}/api/threads/${threadId}`, { token: server.token })
      expect(detail.body.messages.map((m: { role: string; id: string }) => m.role)).toEqual(["user", "assistant"])
      expect(detail.body.messages[0].id).toBe("m-1")
      // Once answered, the id is taken again.
      const third = await postChat(server, { ...text("Try me"), threadId, messageId: "m-1" })
      expect(third.status).toBe(400)
    } finally {
      await server.close()
    }
  })
})

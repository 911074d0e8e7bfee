import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

describe("POST /api/chat (smoke)", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())

  it("streams the model's answer and stores both messages", async () => {
    server.model.script({ text: "Hello there, owner." })
    const response = await chat(server, "Hi!")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const threadId = response.headers.get("x-thread-id")!
    const body = await response.text()
    const chunks = chunksOf(body)
    expect(chunks.map((chunk) => chunk.type)).toContain("finish")
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("")
    expect(text).toBe("Hello there, owner.")
    const detail = await request(`${server.url}/api/threads/${threadId}`, { token: server.token })
    expect(detail.body.messages.map((m: any) => m.role)).toEqual(["user", "assistant"])
    expect(detail.body.thread.title).toBe("Hi!")
  })
})

describe("keep-alive comments on an idle stream", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ chatHeartbeat: 20 })
  })
  afterAll(() => server.close())

  it("sends `: keep-alive` while the model is silent, and AI SDK chunks around it", async () => {
    server.model.script({ text: ["one ", "two ", "three"], chunkDelayMs: 120 })
    const body = await (await chat(server, "Slowly, please")).text()
    expect(body).toContain(": keep-alive\n\n")
    const text = chunksOf(body)
      .filter((chunk) => chunk.type === "text-delta")
      .map((chunk) => chunk.delta)
      .join("")
    expect(text).toBe("one two three")
  })
})

describe("X-Thread-Id is always present", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())

  it("names the thread on a 500 too, so the client can find its saved message", async () => {
    server.model.script({ error: { status: 400, message: "model exploded" } })
    const response = await chat(server, "Hello?")
    expect(response.status).toBe(500)
    const threadId = response.headers.get("x-thread-id")
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/)
    const detail = await request(`${server.url}/api/threads/${threadId}`, { token: server.token })
    expect(detail.body.messages.map((message: any) => message.role)).toEqual(["user"])
  })

  it("names the given thread on a 409", async () => {
    server.model.script({ text: ["a ", "b ", "c"], chunkDelayMs: 200 })
    const first = await chat(server, "slow", "busy-thread")
    const second = await chat(server, "again", "busy-thread")
    expect(second.status).toBe(409)
    expect(second.headers.get("x-thread-id")).toBe("busy-thread")
    await first.text()
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, postChat, startChatServer, threadDetail } from "./support/chat.js"

describe("POST /api/chat messageId", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())

  it("a client's id names the stored user message, so a fork by that id works", async () => {
    const response = await postChat(server, { parts: [{ type: "text", text: "Hi" }], messageId: "client-1" })
    expect(response.status).toBe(200)
    await response.text()
    const threadId = response.headers.get("x-thread-id")!
    const detail = await threadDetail(server, threadId)
    expect(detail.body.messages[0]).toMatchObject({ id: "client-1", role: "user" })
  })

  it("an id already in the thread is a 400, and the history is untouched", async () => {
    const first = await postChat(server, { parts: [{ type: "text", text: "One" }], messageId: "dup" })
    await first.text()
    const threadId = first.headers.get("x-thread-id")!
    const again = await postChat(server, { parts: [{ type: "text", text: "Two" }], threadId, messageId: "dup" })
    expect(again.status).toBe(400)
    expect(await again.json()).toEqual({ error: "messageId is already in the thread" })
    expect((await threadDetail(server, threadId)).body.messages).toHaveLength(2)
  })

  it("an id that is not 1-100 of [A-Za-z0-9_.:-] is a 400", async () => {
    const response = await postChat(server, { parts: [{ type: "text", text: "Hi" }], messageId: "a b" })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/messageId must be/)
  })
})

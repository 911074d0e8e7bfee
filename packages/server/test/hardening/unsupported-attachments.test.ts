import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  type ChatTestServer,
  chat,
  chunksOf,
  postChat,
  startChatServer,
  textOfChunks,
  threadDetail,
} from "../support/chat.js"
import { request } from "../support/server.js"

/**
 * Issue 20, finding 15: an attachment of a type no model (or not this model) takes is the
 * client's mistake: 415 `{ error }` naming the type, never a 500.
 */
describe("unsupported attachment types over HTTP", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  const withFile = (mediaType: string, threadId?: string) => ({
    parts: [
      { type: "text", text: "Look at this" },
      {
        type: "file",
        mediaType,
        url: `data:${mediaType};base64,TVqQAAMAAAAEAAAA//8AALgAAAAAAAAAQAAAAAAAAAAA`,
        filename: "f",
      },
    ],
    ...(threadId === undefined ? {} : { threadId }),
  })

  it("application/x-msdownload is 415 before anything is stored or sent to the model", async () => {
    const threadId = `exe-${Date.now()}`
    const response = await postChat(server, withFile("application/x-msdownload", threadId))
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({
      error:
        "parts.1.mediaType: attachments of type application/x-msdownload are not supported " +
        "(image/*, audio/*, video/*, text/* and application/pdf are)",
    })
    expect(server.model.requests).toHaveLength(0)
    expect((await threadDetail(server, threadId)).status).toBe(404)
  })

  it("video/mp4 to a model that takes only images is 415 naming the type; the thread goes on", async () => {
    const response = await postChat(server, withFile("video/mp4"))
    expect(response.status).toBe(415)
    const body = await response.json()
    expect(Object.keys(body)).toEqual(["error"])
    expect(body.error).toMatch(/^the model cannot take this attachment: .*video\/mp4/)
    const threadId = response.headers.get("x-thread-id")!

    server.model.script({ text: "Hello." })
    const next = await chat(server, "Then just say hi", threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Hello.")
  })

  it("the OpenAPI document lists 415 for POST /api/chat", async () => {
    const spec = (await request(`${server.url}/api/openapi.json`)).body
    expect(Object.keys(spec.paths["/api/chat"].post.responses)).toContain("415")
  })
})

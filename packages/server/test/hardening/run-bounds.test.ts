import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  type ChatTestServer,
  chat,
  chunksOf,
  eventually,
  startChatServer,
  textOfChunks,
  textOfParts,
  threadDetail,
} from "../support/chat.js"

/**
 * Issue 9, item 9: a run has bounds. A model that streams for ever is cut at the answer limit,
 * one that stalls is cut after the idle timeout; either way the stream ends with an `error`
 * chunk naming the bound, the thread keeps what was produced (settled), and takes the next
 * message. (The RSS figures are measured by bench/run-bounds.mjs, not asserted here.)
 */

const maxAnswerBytes = 64 * 1024

describe("run bounds over HTTP", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ kernel: { chat: { maxRetries: 0, maxAnswerBytes, idleTimeout: "1 second" } } })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  it("a model streaming for ever is cut at the answer limit; the thread keeps exactly what was sent", async () => {
    server.model.script({ text: ["0123456789abcdef"], endless: true })
    const response = await chat(server, "Count for ever")
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const chunks = chunksOf(await response.text())
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: expect.stringContaining(`${maxAnswerBytes} bytes`) })
    const shown = textOfChunks(chunks)
    expect(shown).toHaveLength(maxAnswerBytes)

    const detail = await threadDetail(server, threadId)
    const assistant = detail.body.messages[1]
    expect(textOfParts(assistant.parts)).toBe(shown)
    expect(assistant.metadata).toMatchObject({ interrupted: "max-answer-bytes" })
    expect(JSON.stringify(assistant.parts)).not.toContain('"streaming"')

    server.model.script({ text: "Back to normal." })
    const next = await chat(server, "Hello again", threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Back to normal.")
  })

  it("a model stalling mid-stream is cut after the idle timeout, keeping what it said", async () => {
    server.model.script({ text: "Once upon a time there", stallAfterChunks: 3 })
    const response = await chat(server, "Tell me a story")
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const chunks = chunksOf(await response.text())
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: expect.stringContaining("sent nothing for 1s") })
    expect(textOfChunks(chunks)).toBe("Once upon a ")

    const assistant = (await threadDetail(server, threadId)).body.messages[1]
    expect(textOfParts(assistant.parts)).toBe("Once upon a ")
    expect(assistant.metadata).toMatchObject({ interrupted: "idle-timeout" })
    expect(JSON.stringify(assistant.parts)).not.toContain('"streaming"')
  })

  it("a model that never answers fails the request with 500 after the idle timeout", async () => {
    server.model.script({ text: "never", stallAfterChunks: 0 })
    const response = await chat(server, "Anyone there?")
    expect(response.status).toBe(500)
    expect((await response.json()).error).toMatch(/sent nothing for 1s/)
  })
})

describe("title requests are bounded too", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ modelTitles: true })
  })
  afterAll(() => server.close())

  const isTitleRequest = (recorded: { readonly body: { readonly messages: ReadonlyArray<{ content?: unknown }> } }) =>
    String(recorded.body.messages[0]?.content ?? "").startsWith("You name conversations")

  it("a model answering a title request for ever is cut after a few hundred characters", async () => {
    server.model.script({ text: ["Endless ", "title "], endless: true, match: isTitleRequest }, { text: "Hello." })
    const response = await chat(server, "Hello there")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    const title = await eventually(async () => {
      const current = (await threadDetail(server, threadId)).body.thread.title as string | null
      return current?.startsWith("Endless title") ? current : undefined
    })
    // The model's answer, cleaned and bounded like any title (80 characters).
    expect(title.endsWith("…")).toBe(true)
    expect(title.length).toBeLessThanOrEqual(80)
  })
})

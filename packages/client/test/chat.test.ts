import { createAideClient } from "@aide/client"
import type { UIMessageChunk } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, password, startRelay, startWithClient } from "./support.js"

const story = Array.from({ length: 30 }, (_, i) => `word${i} `)

const collect = async (chunks: AsyncIterable<UIMessageChunk>) => {
  const all: Array<UIMessageChunk> = []
  for await (const chunk of chunks) all.push(chunk)
  return all
}
const textOf = (chunks: ReadonlyArray<UIMessageChunk>) =>
  chunks.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("")

let server: ChatTestServer
let client: ReturnType<typeof createAideClient>
beforeAll(async () => {
  ;({ server, client } = await startWithClient())
})
afterAll(() => server.close())

describe("client.chat.send", () => {
  it("streams the answer's chunks with the thread and run ids", async () => {
    server.model.script({ text: "Hello there" })
    const { threadId, runId, chunks } = await client.chat.send({ text: "Hi" })
    const all = await collect(chunks)
    expect(all[0]).toMatchObject({ type: "start", messageMetadata: { runId, threadId } })
    expect(all.at(-1)?.type).toBe("finish")
    expect(textOf(all)).toBe("Hello there")
  })

  it("keeps the client's message id and continues a thread", async () => {
    const first = await client.chat.send({ text: "One", messageId: "client-msg-1" })
    await collect(first.chunks)
    const second = await client.chat.send({
      parts: [{ type: "text", text: "Two" }],
      threadId: first.threadId,
      messageId: "client-msg-2",
    })
    await collect(second.chunks)
    const detail = await client.threads.get(first.threadId)
    expect(detail.messages.filter((m) => m.role === "user").map((m) => m.id)).toEqual(["client-msg-1", "client-msg-2"])
    await expect(
      client.chat.send({ text: "again", threadId: first.threadId, messageId: "client-msg-1" }),
    ).rejects.toMatchObject({ status: 400, code: "messageId is already in the thread" })
  })

  it("a 400 is an AideError with the SPEC message", async () => {
    await expect(client.chat.send({ parts: [] })).rejects.toMatchObject({
      status: 400,
      code: "parts must be a non-empty array",
    })
  })

  it("a connection dropped mid-stream resumes with Last-Event-ID: every chunk once, in order", async () => {
    const relay = await startRelay(server.url)
    try {
      const reconnects: Array<string | null> = []
      const relayed = createAideClient({
        baseUrl: relay.url,
        fetch: (input, init) => {
          if (input.endsWith("/stream")) reconnects.push(new Headers(init.headers).get("last-event-id"))
          return fetch(input, init)
        },
      })
      await relayed.auth.login(password)
      server.model.script({ text: story, chunkDelayMs: 15 })
      const { chunks } = await relayed.chat.send({ text: "Tell me a story" })
      const seen: Array<UIMessageChunk> = []
      for await (const chunk of chunks) {
        seen.push(chunk)
        if (seen.filter((c) => c.type === "text-delta").length === 3) relay.cut()
      }
      expect(textOf(seen)).toBe(story.join(""))
      expect(seen.filter((c) => c.type === "start")).toHaveLength(1)
      expect(seen.at(-1)?.type).toBe("finish")
      expect(reconnects).toHaveLength(1)
      expect(Number(reconnects[0])).toBeGreaterThan(3)
    } finally {
      await relay.close()
    }
  })
})

describe("client.chat.stop and resume", () => {
  it("resume replays the running answer from its start; stop ends it; then resume is null", async () => {
    server.model.script({ text: story, chunkDelayMs: 20 })
    const sent = await client.chat.send({ text: "Long one" })
    const iterator = sent.chunks[Symbol.asyncIterator]()
    await iterator.next()
    const resumed = await client.chat.resume(sent.threadId)
    expect(resumed).not.toBeNull()
    expect(resumed!.runId).toBe(sent.runId)
    const first = await resumed!.chunks[Symbol.asyncIterator]().next()
    expect(first.value).toMatchObject({ type: "start" })
    expect(await client.chat.stop(sent.threadId)).toBe(true)
    await iterator.return?.(undefined)
    await expect.poll(() => client.chat.resume(sent.threadId)).toBeNull()
    expect(await client.chat.stop(sent.threadId)).toBe(false)
  })
})

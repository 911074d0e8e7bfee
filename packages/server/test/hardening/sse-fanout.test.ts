import * as net from "node:net"
import { StreamHub } from "@aide/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  activeStreamIds,
  type ChatTestServer,
  chat,
  eventually,
  isChunk,
  resume,
  sseReader,
  startChatServer,
  stop,
} from "../support/chat.js"

// Issue 9, item 8: reconnects to one running chat are capped per stream and per server, all
// get the same bytes, and every one that leaves gives its place (and memory) back to the hub.

const story = ["Once ", "upon ", "a ", "time ", "there ", "was ", "a ", "stream."]

const subscriberCount = (server: ChatTestServer, threadId?: string) =>
  server.run(Effect.flatMap(StreamHub.StreamHub, (hub) => hub.subscriberCount(threadId)))

describe("SSE resume fan-out", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ streamMaxSubscribersPerStream: 3, streamMaxSubscribers: 4 })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  /** A running chat, read by its sender until its first text delta. */
  const running = async () => {
    const response = await chat(server, "Tell me a story")
    const original = sseReader(response)
    await original.until(isChunk("text-delta"))
    return { threadId: response.headers.get("x-thread-id")!, original }
  }

  it("past the per-stream cap: 429 with Retry-After; past the server's: 503; every subscriber gets the same bytes", async () => {
    server.model.script({ text: story, chunkDelayMs: 80 }, { text: story, chunkDelayMs: 80 })
    const a = await running()
    const onA = await Promise.all([1, 2, 3].map(() => resume(server, a.threadId)))
    expect(onA.map((response) => response.status)).toEqual([200, 200, 200])

    const overStream = await resume(server, a.threadId)
    expect(overStream.status).toBe(429)
    expect(overStream.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(await overStream.json()).toEqual({ error: "too many subscribers to this stream" })

    const b = await running()
    const onB = await resume(server, b.threadId)
    expect(onB.status).toBe(200)
    const overServer = await resume(server, b.threadId)
    expect(overServer.status).toBe(503)
    expect(overServer.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(await overServer.json()).toEqual({ error: "too many open streams on this server" })

    const [original, ...texts] = await Promise.all([
      a.original.rest(),
      ...onA.map((response) => response.text()),
      onB.text(),
      b.original.rest(),
    ])
    expect(original!.at(-1)?.data).toBe("[DONE]")
    // The three reconnects to A joined at different moments; each replayed from the start.
    expect(texts[1]).toBe(texts[0])
    expect(texts[2]).toBe(texts[0])
    expect(texts[0]).toContain("data: [DONE]")
    // Finished streams hold no subscriber.
    expect(await subscriberCount(server)).toBe(0)
  })

  it("clients that go away leave the hub at once: the count returns to 0 while the stream still runs", async () => {
    server.model.script({ text: story, chunkDelayMs: 80 })
    const { threadId, original } = await running()
    const aborts = [1, 2, 3].map(() => new AbortController())
    const responses = await Promise.all(
      aborts.map((abort) =>
        fetch(`${server.url}/api/chat/${threadId}/stream`, {
          headers: { authorization: `Bearer ${server.token}` },
          signal: abort.signal,
        }),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
    expect(await subscriberCount(server, threadId)).toBe(3)
    for (const abort of aborts) abort.abort()
    await eventually(async () => ((await subscriberCount(server)) === 0 ? true : undefined))
    // Their places are free again: a full stream's worth of new reconnects is accepted.
    const again = await Promise.all([1, 2, 3].map(() => resume(server, threadId)))
    expect(again.map((response) => response.status)).toEqual([200, 200, 200])
    await Promise.all([original.rest(), ...again.map((response) => response.text())])
    expect(await subscriberCount(server)).toBe(0)
  })
})

describe("a reconnected client that stops reading", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({
      chatMaxLagBytes: 64 * 1024,
      kernel: { chat: { maxRetries: 0, maxAnswerBytes: 64 * 1024 * 1024 } },
    })
  })
  afterAll(() => server.close())

  it("is dropped once too far behind, instead of being buffered without bound; the stream goes on", async () => {
    // ~16 MB, more than loopback's socket buffers hold, then the model hangs (the stream stays open).
    const piece = "x".repeat(32 * 1024)
    server.model.script({ text: Array.from({ length: 500 }, () => piece), chunkDelayMs: 2, stallAfterChunks: 400 })
    const response = await chat(server, "Write a lot")
    const threadId = response.headers.get("x-thread-id")!
    const original = sseReader(response)
    await original.until(isChunk("text-delta"))

    // A client that reads the status line, then nothing more.
    const stalled = net.connect(Number(new URL(server.url).port), "127.0.0.1")
    const head = await new Promise<string>((resolve) => {
      stalled.once("data", (chunk) => {
        stalled.pause()
        resolve(chunk.toString("latin1"))
      })
      stalled.write(
        `GET /api/chat/${threadId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n\r\n`,
      )
    })
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    // Dropped while the stream still runs: it no longer counts, nor holds what it did not read.
    await eventually(async () => ((await subscriberCount(server, threadId)) === 0 ? true : undefined), {
      timeoutMs: 20_000,
    })
    expect(await activeStreamIds(server)).toContain(threadId)
    stalled.destroy()

    await stop(server, threadId)
    const events = await original.rest()
    expect(events.at(-1)?.data).toBe("[DONE]")
  })
})

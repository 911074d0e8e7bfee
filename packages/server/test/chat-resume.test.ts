import { StreamHub, Threads } from "@aide/kernel"
import { DefaultChatTransport } from "ai"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  activeStreamIds,
  type ChatTestServer,
  chat,
  chunksOf,
  eventually,
  isChunk,
  parseSse,
  postChat,
  readWithAiSdk,
  resume,
  type SseEvent,
  sseReader,
  startChatServer,
  stop,
  textOfChunks,
  textOfParts,
  threadDetail,
} from "./support/chat.js"
import { storageKindsWherePostgresDiffers } from "./support/server.js"

/** Eight chunks, slow enough to act mid-stream. */
const story = ["Once ", "upon ", "a ", "time ", "there ", "was ", "a ", "stream."]
const storyText = story.join("")
const slowStory = (chunkDelayMs = 60) => ({ text: story, chunkDelayMs })

const chunksOfEvents = (events: ReadonlyArray<SseEvent>) =>
  events.filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data))

const storedMessages = async (server: ChatTestServer, threadId: string) =>
  (await threadDetail(server, threadId)).body.messages as Array<{
    id: string
    role: string
    parts: Array<{ type: string; text?: string }>
  }>

describe.each(storageKindsWherePostgresDiffers)("disconnect and stop (%s)", (storage) => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ storage })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  describe("a client that disconnects does not stop the response", () => {
    it("a reconnect gets the rest, and the whole assistant message is stored", async () => {
      server.model.script(slowStory())
      const disconnect = new AbortController()
      const response = await postChat(
        server,
        { parts: [{ type: "text", text: "Tell me a story" }] },
        { signal: disconnect.signal },
      )
      const threadId = response.headers.get("x-thread-id")!
      const seen = sseReader(response)
      await seen.until(isChunk("text-delta"))
      disconnect.abort()

      const reconnected = await resume(server, threadId)
      expect(reconnected.status).toBe(200)
      const events = parseSse(await reconnected.text())
      expect(events.at(-1)?.data).toBe("[DONE]")
      const chunks = chunksOfEvents(events)
      expect(chunks.at(-1)?.type).toBe("finish")
      expect(textOfChunks(chunks)).toBe(storyText)

      const [, assistant] = await storedMessages(server, threadId)
      expect(textOfParts(assistant!.parts)).toBe(storyText)
      expect(assistant!.id).toBe(chunks[0].messageId)
      expect(server.model.requests).toHaveLength(1)
    })

    it("with nobody reconnecting, the whole message is still stored", async () => {
      server.model.script(slowStory(30))
      const disconnect = new AbortController()
      const response = await postChat(
        server,
        { parts: [{ type: "text", text: "Tell me a story" }] },
        { signal: disconnect.signal },
      )
      const threadId = response.headers.get("x-thread-id")!
      await sseReader(response).until(isChunk("text-delta"))
      disconnect.abort()

      const messages = await eventually(async () => {
        const stored = await storedMessages(server, threadId)
        return stored.length === 2 ? stored : undefined
      })
      expect(textOfParts(messages[1]!.parts)).toBe(storyText)
      expect(await activeStreamIds(server)).not.toContain(threadId)
    })
  })

  describe("POST /api/chat/:threadId/stop", () => {
    it("mid-stream: stopped, the stream ends with an abort chunk, and what was produced is stored", async () => {
      server.model.script(slowStory(100))
      const response = await chat(server, "Tell me a long story")
      const threadId = response.headers.get("x-thread-id")!
      const reader = sseReader(response)
      await reader.until(isChunk("text-delta"))

      const stopped = await stop(server, threadId)
      expect(stopped.status).toBe(200)
      expect(stopped.body).toEqual({ success: true, stopped: true })

      const events = await reader.rest()
      expect(events.at(-1)).toEqual({ id: undefined, data: "[DONE]" })
      const chunks = chunksOfEvents(events)
      expect(chunks.at(-1)).toMatchObject({ type: "abort" })
      expect(chunks.map((chunk) => chunk.type)).not.toContain("finish")
      const streamed = textOfChunks(chunks)
      expect(streamed.length).toBeGreaterThan(0)
      expect(streamed.length).toBeLessThan(storyText.length)
      expect(storyText.startsWith(streamed)).toBe(true)

      // What the client saw is what was stored.
      const messages = await storedMessages(server, threadId)
      expect(messages.map((message) => message.role)).toEqual(["user", "assistant"])
      expect(textOfParts(messages[1]!.parts)).toBe(streamed)
      expect(await activeStreamIds(server)).not.toContain(threadId)
    })

    it("before the first token: the response carries only start and abort, and no assistant message is stored", async () => {
      const threadId = `stop-early-${Date.now()}`
      server.model.script({ text: "Too late.", latencyMs: 400 })
      const pending = chat(server, "Think hard", threadId)
      await eventually(() => (server.model.requests.length === 1 ? true : undefined))

      expect((await stop(server, threadId)).body).toEqual({ success: true, stopped: true })
      const response = await pending
      expect(response.status).toBe(200)
      const chunks = chunksOf(await response.text())
      expect(chunks.map((chunk) => chunk.type)).toEqual(["start", "abort"])
      const messages = await storedMessages(server, threadId)
      expect(messages.map((message) => message.role)).toEqual(["user"])
    })

    it("the thread accepts a new chat right after a stop", async () => {
      server.model.script(slowStory(100), { text: "Short version." })
      const response = await chat(server, "Tell me a story")
      const threadId = response.headers.get("x-thread-id")!
      const reader = sseReader(response)
      await reader.until(isChunk("text-delta"))
      await stop(server, threadId)
      await reader.rest()

      const next = await chat(server, "Shorter, please", threadId)
      expect(next.status).toBe(200)
      expect(textOfChunks(chunksOf(await next.text()))).toBe("Short version.")
    })

    it("with nothing running: stopped false, for a finished thread and for an unknown one", async () => {
      server.model.script({ text: "Done." })
      const response = await chat(server, "Quick one")
      const threadId = response.headers.get("x-thread-id")!
      await response.text()

      const finished = await stop(server, threadId)
      expect(finished.status).toBe(200)
      expect(finished.body).toEqual({ success: true, stopped: false })
      const unknown = await stop(server, "never-seen-thread")
      expect(unknown.status).toBe(200)
      expect(unknown.body).toEqual({ success: true, stopped: false })
      // A stop that found nothing changed nothing.
      expect((await storedMessages(server, threadId)).map((message) => message.role)).toEqual(["user", "assistant"])
    })
  })
})

// The hub lives in memory: storage plays no part in resuming.
describe("GET /api/chat/:threadId/stream", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  /** Starts a slow response and reads it until its first text delta. */
  const startSlowStory = async () => {
    server.model.script(slowStory())
    const response = await chat(server, "Tell me a story")
    const original = sseReader(response)
    await original.until(isChunk("text-delta"))
    return { threadId: response.headers.get("x-thread-id")!, original }
  }

  it("while streaming: replays from the first event, then follows live, with the original's ids", async () => {
    const { threadId, original } = await startSlowStory()
    const response = await resume(server, threadId)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(response.headers.get("x-thread-id")).toBe(threadId)

    const resumed = sseReader(response)
    await resumed.until(isChunk("text-delta"))
    // Still live: the end has not been produced yet.
    expect(resumed.events.some(isChunk("finish"))).toBe(false)

    const [originalEvents, resumedEvents] = await Promise.all([original.rest(), resumed.rest()])
    expect(resumedEvents[0]?.id).toBe("1")
    expect(resumedEvents).toEqual(originalEvents)
    expect(textOfChunks(chunksOfEvents(resumedEvents))).toBe(storyText)
  })

  it("a reconnect answered beside the Effect stack (the canonical path) answers exactly as the stack does", async () => {
    // `/stream/` (trailing slash) is left to the Effect stack's router; `/stream` is taken by the
    // direct path (http/DirectReconnects). Both must answer the same.
    const { threadId, original } = await startSlowStory()
    const url = `${server.url}/api/chat/${encodeURIComponent(threadId)}/stream`
    const headers = { authorization: `Bearer ${server.token}`, "last-event-id": "1" }
    const [direct, viaStack] = await Promise.all([fetch(url, { headers }), fetch(`${url}/`, { headers })])
    const shown = (response: Response) => ({
      status: response.status,
      headers: Object.fromEntries(
        [...response.headers].filter(
          ([name]) => !["date", "connection", "keep-alive", "transfer-encoding"].includes(name),
        ),
      ),
    })
    expect(shown(direct)).toEqual(shown(viaStack))
    expect(shown(direct).headers["x-thread-id"]).toBe(threadId)
    const [directEvents, stackEvents] = await Promise.all([sseReader(direct).rest(), sseReader(viaStack).rest()])
    expect(directEvents).toEqual(stackEvents)
    expect(directEvents[0]?.id).toBe("2")
    await original.rest()
    // A bad token on the canonical path is the stack's 401, not a stream.
    const refused = await fetch(url, { headers: { authorization: "Bearer nope" } })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: "unauthorized" })
  })

  it("with Last-Event-ID: N, continues exactly after event N: no gap, no duplicate", async () => {
    server.model.script(slowStory())
    const response = await chat(server, "Tell me a story")
    const threadId = response.headers.get("x-thread-id")!
    const original = sseReader(response)
    await original.until((event) => event.id === "5")

    const resumedResponse = await resume(server, threadId, 5)
    expect(resumedResponse.status).toBe(200)
    const [originalEvents, resumedEvents] = await Promise.all([original.rest(), sseReader(resumedResponse).rest()])
    expect(resumedEvents[0]?.id).toBe("6")
    expect(resumedEvents).toEqual(originalEvents.slice(5))
    expect(chunksOfEvents(resumedEvents).at(-1)?.type).toBe("finish")
  })

  it("an AI SDK client reconnecting without Last-Event-ID rebuilds the whole message", async () => {
    const { threadId, original } = await startSlowStory()
    const message = await readWithAiSdk(await resume(server, threadId))
    await original.rest()
    expect(message?.role).toBe("assistant")
    expect(textOfParts(message!.parts as any)).toBe(storyText)
    const [, stored] = await storedMessages(server, threadId)
    expect(message!.id).toBe(stored!.id)
  })

  it("the AI SDK's DefaultChatTransport.reconnectToStream gets an active stream whole", async () => {
    const { threadId, original } = await startSlowStory()
    const transport = new DefaultChatTransport({
      api: `${server.url}/api/chat`,
      headers: { authorization: `Bearer ${server.token}` },
    })
    const stream = await transport.reconnectToStream({ chatId: threadId })
    expect(stream).not.toBeNull()
    const chunks: Array<{ type: string; delta?: string }> = []
    for await (const chunk of stream!) chunks.push(chunk)
    await original.rest()
    expect(chunks[0]?.type).toBe("start")
    expect(chunks.at(-1)?.type).toBe("finish")
    expect(textOfChunks(chunks)).toBe(storyText)
  })

  it("two reconnects at once both get the whole stream", async () => {
    const { threadId, original } = await startSlowStory()
    const [first, second] = await Promise.all([resume(server, threadId), resume(server, threadId)])
    const [originalEvents, firstEvents, secondEvents] = await Promise.all([
      original.rest(),
      sseReader(first).rest(),
      sseReader(second).rest(),
    ])
    expect(firstEvents).toEqual(originalEvents)
    expect(secondEvents).toEqual(originalEvents)
  })

  it("after the response finished, a plain reconnect answers 204: a client resuming on open does not show the reply twice", async () => {
    server.model.script({ text: "All done here." })
    const response = await chat(server, "Quick answer")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()

    const reconnect = await resume(server, threadId)
    expect(reconnect.status).toBe(204)
    expect(await reconnect.text()).toBe("")
  })

  it("an AI SDK client (DefaultChatTransport.reconnectToStream) opening a finished thread gets no stream", async () => {
    server.model.script({ text: "All done here." })
    const response = await chat(server, "Quick answer")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()

    const transport = new DefaultChatTransport({
      api: `${server.url}/api/chat`,
      headers: { authorization: `Bearer ${server.token}` },
    })
    expect(await transport.reconnectToStream({ chatId: threadId })).toBeNull()
  })

  it("after the response finished, Last-Event-ID N within the retention: 200 with the events after N, then [DONE]", async () => {
    server.model.script({ text: "All done here." })
    const response = await chat(server, "Quick answer")
    const threadId = response.headers.get("x-thread-id")!
    const originalEvents = parseSse(await response.text())

    const rest = await resume(server, threadId, 3)
    expect(rest.status).toBe(200)
    const events = parseSse(await rest.text())
    expect(events).toEqual(originalEvents.slice(3))
    expect(chunksOfEvents(events).at(-1)?.type).toBe("finish")
    expect(events.at(-1)?.data).toBe("[DONE]")
  })

  it("after the response finished, Last-Event-ID of its last event: 200 with only [DONE]", async () => {
    server.model.script({ text: "All done here." })
    const response = await chat(server, "Quick answer")
    const threadId = response.headers.get("x-thread-id")!
    const originalEvents = parseSse(await response.text())
    const lastId = originalEvents.at(-2)!.id!

    const replay = await resume(server, threadId, lastId)
    expect(replay.status).toBe(200)
    expect(parseSse(await replay.text())).toEqual([{ id: undefined, data: "[DONE]" }])
  })

  it("a Last-Event-ID that is not an event id counts as absent: a finished stream answers 204", async () => {
    server.model.script({ text: "All done here." })
    const response = await chat(server, "Quick answer")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()

    // Not an id at all, or one past the last event (an earlier run's).
    for (const header of ["abc", "-3", "2.5", "", "99"]) {
      const replay = await resume(server, threadId, header)
      expect(replay.status).toBe(204)
    }
  })

  it("while streaming, a Last-Event-ID that is not an event id replays from the start", async () => {
    const { threadId, original } = await startSlowStory()
    const resumed = await resume(server, threadId, "abc")
    expect(resumed.status).toBe(200)
    const [originalEvents, resumedEvents] = await Promise.all([original.rest(), sseReader(resumed).rest()])
    expect(resumedEvents).toEqual(originalEvents)
  })

  it("a new response on the thread replaces the previous one: its ids start again at 1", async () => {
    server.model.script({ text: "First answer." }, { text: "Second answer." })
    const first = await chat(server, "One")
    const threadId = first.headers.get("x-thread-id")!
    const firstRunId = chunksOf(await first.text())[0].messageMetadata.runId
    const second = await chat(server, "Two", threadId)
    const secondEvents = parseSse(await second.text())

    // Last-Event-ID 0: a client that was reading the second run from its start.
    const replay = await resume(server, threadId, 0)
    const events = parseSse(await replay.text())
    expect(events).toEqual(secondEvents)
    expect(events[0]?.id).toBe("1")
    const chunks = chunksOfEvents(events)
    expect(chunks[0].messageMetadata.runId).not.toBe(firstRunId)
    expect(textOfChunks(chunks)).toBe("Second answer.")
  })

  it("204 for a thread that never streamed, known or unknown", async () => {
    const unknown = await resume(server, "thread-that-does-not-exist")
    expect(unknown.status).toBe(204)
    expect(await unknown.text()).toBe("")

    // A thread that exists but never had a response (e.g. a fresh fork).
    await server.run(Effect.flatMap(Threads.Threads, (threads) => threads.ensure("quiet-thread")))
    expect((await resume(server, "quiet-thread")).status).toBe(204)
  })
})

describe("stream retention", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ kernel: { streamHub: StreamHub.layerMemory({ retention: 50 }) } })
  })
  afterAll(() => server.close())

  it("a finished stream is dropped after the retention: 204 even with Last-Event-ID", async () => {
    server.model.script({ text: "Soon forgotten." })
    const response = await chat(server, "Remember this stream?")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()

    await eventually(async () => ((await resume(server, threadId, 1)).status === 204 ? true : undefined), {
      timeoutMs: 2_000,
    })
    // The conversation itself is kept.
    expect((await storedMessages(server, threadId)).map((message) => message.role)).toEqual(["user", "assistant"])
  })

  it("a stream is kept while it runs, however long past the retention", async () => {
    server.model.script({ text: ["slow ", "but ", "sure"], chunkDelayMs: 100 })
    const response = await chat(server, "Take your time")
    const threadId = response.headers.get("x-thread-id")!
    const original = sseReader(response)
    await original.until(isChunk("text-delta"))
    await new Promise((resolve) => setTimeout(resolve, 120))

    const resumed = await resume(server, threadId)
    expect(resumed.status).toBe(200)
    const [originalEvents, resumedEvents] = await Promise.all([original.rest(), sseReader(resumed).rest()])
    expect(resumedEvents).toEqual(originalEvents)
  })
})

import * as http from "node:http"
import { ServerConfig } from "@aide/server"
import type { RecordedRequest } from "@aide/testing"
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
  sseReader,
  startChatServer,
  textOfChunks,
  textOfParts,
  threadDetail,
} from "./support/chat.js"
import { request, storageKindsWherePostgresDiffers } from "./support/server.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const partsRequired = { error: "parts must be a non-empty array" }
/** A 1×1 PNG's first bytes: any base64 payload will do, the fake model does not decode it. */
const pngDataUrl =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="

const systemMessageOf = (recorded: RecordedRequest) => {
  const [first] = recorded.body.messages
  expect(first?.role).toBe("system")
  return first!.content as string
}

/** `HH:MM` (24 h) of `at` in `timeZone`. */
const clockIn = (timeZone: string, at: number) =>
  new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(at)

/** The body of a chat's answer as the socket delivered it: one string per read. */
const rawWrites = (server: ChatTestServer, text: string) =>
  new Promise<Array<string>>((resolve, reject) => {
    const target = new URL("/api/chat", server.url)
    const req = http.request(
      target,
      {
        method: "POST",
        agent: false,
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      },
      (res) => {
        const writes: Array<string> = []
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => writes.push(chunk))
        res.on("end", () => resolve(writes))
        res.on("error", reject)
      },
    )
    req.on("error", reject)
    req.end(JSON.stringify({ parts: [{ type: "text", text }] }))
  })

describe.each(storageKindsWherePostgresDiffers)("chat over HTTP (%s)", (storage) => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ storage })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  const listThreads = async () =>
    (await request(`${server.url}/api/threads?perPage=false`, { token: server.token })).body as {
      threads: Array<{ id: string; threadIds: Array<string>; title: string | null }>
      total: number
      activeStreamIds: Array<string>
    }

  describe("POST /api/chat: threads", () => {
    it("answers 200 text/event-stream with X-Thread-Id, creating a thread with a UUID when threadId is absent", async () => {
      server.model.script({ text: "Hello." })
      const response = await chat(server, "Hi there")
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      const threadId = response.headers.get("x-thread-id")
      expect(threadId).toMatch(uuid)
      await response.text()
      const listed = await listThreads()
      expect(listed.threads.map((thread) => thread.id)).toContain(threadId)
    })

    it("an unknown threadId creates a root thread with that id, listed like any other", async () => {
      const threadId = `client-chat-${Date.now()}`
      server.model.script({ text: "Nice to meet you." })
      const response = await chat(server, "First message from an AI SDK client", threadId)
      expect(response.status).toBe(200)
      expect(response.headers.get("x-thread-id")).toBe(threadId)
      await response.text()

      const summary = (await listThreads()).threads.find((thread) => thread.id === threadId)
      expect(summary).toMatchObject({ id: threadId, threadIds: [threadId] })
      const detail = await threadDetail(server, threadId)
      expect(detail.status).toBe(200)
      expect(detail.body.forkInfo).toBeNull()
      expect(detail.body.messages.map((message: any) => message.role)).toEqual(["user", "assistant"])
    })

    it("a known threadId continues the thread: the model receives its whole history", async () => {
      server.model.script({ text: "Nice to meet you, Ada." }, { text: "Your name is Ada." })
      const first = await chat(server, "My name is Ada.")
      const threadId = first.headers.get("x-thread-id")!
      await first.text()
      const second = await chat(server, "What is my name?", threadId)
      expect(second.status).toBe(200)
      expect(second.headers.get("x-thread-id")).toBe(threadId)
      expect(textOfChunks(chunksOf(await second.text()))).toBe("Your name is Ada.")

      expect(server.model.requests).toHaveLength(2)
      const messages = server.model.requests[1]!.body.messages
      expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
      expect(messages.slice(1)).toMatchObject([
        { role: "user", content: "My name is Ada." },
        { role: "assistant", content: "Nice to meet you, Ada." },
        { role: "user", content: "What is my name?" },
      ])
      const detail = await threadDetail(server, threadId)
      expect(detail.body.messages.map((message: any) => textOfParts(message.parts))).toEqual([
        "My name is Ada.",
        "Nice to meet you, Ada.",
        "What is my name?",
        "Your name is Ada.",
      ])
    })

    it("a branch is continued by its own id: the model receives the cloned history, the family stays one root", async () => {
      server.model.script({ text: "Paris." }, { text: "Rome." })
      const first = await chat(server, "Name a capital.")
      const rootId = first.headers.get("x-thread-id")!
      await first.text()
      const assistantId = (await threadDetail(server, rootId)).body.messages[1].id
      // Forking at the assistant's answer keeps the question only: ask it again on the branch.
      const fork = await request(`${server.url}/api/threads/${rootId}/fork`, {
        token: server.token,
        body: { messageId: assistantId },
      })
      expect(fork.status).toBe(200)
      const branchId = fork.body.thread.id as string

      const onBranch = await chat(server, "Another one?", branchId)
      expect(onBranch.status).toBe(200)
      expect(onBranch.headers.get("x-thread-id")).toBe(branchId)
      await onBranch.text()

      expect(server.model.requests[1]!.body.messages.slice(1)).toMatchObject([
        { role: "user", content: "Name a capital." },
        { role: "user", content: "Another one?" },
      ])
      const listed = await listThreads()
      expect(listed.threads.map((thread) => thread.id)).not.toContain(branchId)
      expect(listed.threads.find((thread) => thread.id === rootId)?.threadIds).toEqual(
        expect.arrayContaining([rootId, branchId]),
      )
      expect((await threadDetail(server, rootId)).body.messages).toHaveLength(2)
    })

    it("persists the user's message before the model answers", async () => {
      const threadId = `persist-first-${Date.now()}`
      // The model holds its answer long enough for the thread to be read on a loaded machine.
      server.model.script({ text: "Noted.", latencyMs: 1_500 })
      let answered = false
      const pending = chat(server, "Remember the milk", threadId).then((response) => {
        answered = true
        return response
      })
      await eventually(() => (server.model.requests.length === 1 ? true : undefined))

      // The message is written beside the model call (it starts once the request is out: the
      // kernel's RunStarter), so it may land a few ms after the model has the request — well
      // before the model answers (1.5 s here), which is what is held.
      const detail = await eventually(async () => {
        const read = await threadDetail(server, threadId)
        return read.status === 200 && read.body.messages.length > 0 ? read : undefined
      })
      expect(answered).toBe(false)
      expect(detail.status).toBe(200)
      expect(detail.body.messages).toEqual([
        { id: expect.any(String), role: "user", parts: [{ type: "text", text: "Remember the milk" }] },
      ])
      const response = await pending
      expect(response.status).toBe(200)
      await response.text()
    })

    it("a second chat on a thread that is streaming gets 409 and stores nothing", async () => {
      server.model.script({ text: ["one ", "two ", "three ", "four"], chunkDelayMs: 80 })
      const first = await chat(server, "Count to four")
      const threadId = first.headers.get("x-thread-id")!
      expect(first.status).toBe(200)

      const second = await chat(server, "Are you there?", threadId)
      expect(second.status).toBe(409)
      expect(await second.json()).toEqual({ error: expect.any(String) })

      await first.text()
      expect(server.model.requests).toHaveLength(1)
      const detail = await threadDetail(server, threadId)
      expect(detail.body.messages.map((message: any) => textOfParts(message.parts))).toEqual([
        "Count to four",
        "one two three four",
      ])
    })

    it("a second chat while the model has not answered yet also gets 409", async () => {
      const threadId = `busy-early-${Date.now()}`
      server.model.script({ text: "Finally.", latencyMs: 300 })
      const first = chat(server, "Take your time", threadId)
      await eventually(() => (server.model.requests.length === 1 ? true : undefined))

      const second = await chat(server, "Hurry up", threadId)
      expect(second.status).toBe(409)
      await (await first).text()
      expect(server.model.requests).toHaveLength(1)
    })

    it("the thread accepts a new chat as soon as its response finished", async () => {
      server.model.script({ text: "One." }, { text: "Two." })
      const first = await chat(server, "First")
      const threadId = first.headers.get("x-thread-id")!
      await first.text()
      const second = await chat(server, "Second", threadId)
      expect(second.status).toBe(200)
      await second.text()
    })
  })

  describe("POST /api/chat: model failures", () => {
    it("a model error before the stream is a 500 carrying the provider's message", async () => {
      server.model.script({ error: { status: 400, message: "model exploded" } })
      const response = await chat(server, "Boom?")
      expect(response.status).toBe(500)
      expect(response.headers.get("content-type")).toMatch(/^application\/json/)
      const body = await response.json()
      expect(body).toEqual({ error: expect.stringContaining("model exploded") })
    })

    it("a provider rate limit is a 500 carrying the provider's message", async () => {
      server.model.script({ error: { status: 429, message: "Rate limit reached for fake-model" } })
      const response = await chat(server, "Again?")
      expect(response.status).toBe(500)
      expect((await response.json()).error).toContain("Rate limit reached for fake-model")
    })

    it("a model stream that breaks before any content is a 500 too", async () => {
      server.model.script({ text: "never sent", failAfterChunks: 0 })
      const response = await chat(server, "Anyone?")
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: expect.any(String) })
    })

    it("after a failure before the stream, the user's message stays and the thread is free again", async () => {
      const threadId = `failed-${Date.now()}`
      server.model.script({ error: { status: 400, message: "model exploded" } }, { text: "Better now." })
      const failed = await chat(server, "Try this", threadId)
      expect(failed.status).toBe(500)
      expect(await activeStreamIds(server)).not.toContain(threadId)
      const afterFailure = await threadDetail(server, threadId)
      expect(afterFailure.body.messages.map((message: any) => message.role)).toEqual(["user"])
      // No resumable stream was opened for the failed run.
      expect((await resume(server, threadId)).status).toBe(204)

      const retried = await chat(server, "Try again", threadId)
      expect(retried.status).toBe(200)
      await retried.text()
    })

    it("a model failing mid-way ends the 200 stream with an error chunk and keeps what was produced", async () => {
      // Events: role + "Hel", "lo, ", then the connection is cut before " world".
      server.model.script({ text: ["Hel", "lo, ", "world"], failAfterChunks: 2 })
      const response = await chat(server, "Say hello")
      expect(response.status).toBe(200)
      const threadId = response.headers.get("x-thread-id")!
      const events = parseSse(await response.text())
      expect(events.at(-1)).toEqual({ id: undefined, data: "[DONE]" })
      const chunks = chunksOf(events.map((event) => `data: ${event.data}\n\n`).join(""))
      expect(textOfChunks(chunks)).toBe("Hello, ")
      expect(chunks).toContainEqual({ type: "error", errorText: expect.any(String) })

      const detail = await threadDetail(server, threadId)
      expect(detail.body.messages.map((message: any) => message.role)).toEqual(["user", "assistant"])
      expect(textOfParts(detail.body.messages[1].parts)).toBe("Hello, ")
      // Marked as cut short, and settled: nothing is stored `streaming`.
      expect(detail.body.messages[1].metadata).toEqual({
        runId: chunks[0].messageMetadata.runId,
        threadId,
        interrupted: "model-error",
      })
      expect(detail.body.messages[1].parts).toContainEqual(expect.objectContaining({ type: "text", state: "done" }))
      expect(detail.body.thread.title).toBe("Say hello")
      expect(await activeStreamIds(server)).not.toContain(threadId)
    })
  })

  describe("the thread after a response", () => {
    it("holds [user, assistant] in UI message format and is titled with the user's first words", async () => {
      const question = "Plan a three-day trip to Kyoto in autumn, with temples, gardens and good vegetarian food"
      server.model.script({ text: "Day one: Fushimi Inari." })
      const response = await chat(server, question)
      const threadId = response.headers.get("x-thread-id")!
      await response.text()

      const detail = await threadDetail(server, threadId)
      expect(detail.status).toBe(200)
      const [user, assistant] = detail.body.messages
      expect(detail.body.messages).toHaveLength(2)
      expect(user).toEqual({ id: expect.any(String), role: "user", parts: [{ type: "text", text: question }] })
      expect(assistant).toMatchObject({ id: expect.any(String), role: "assistant" })
      expect(assistant.parts).toContainEqual(expect.objectContaining({ type: "text", text: "Day one: Fushimi Inari." }))

      const title = detail.body.thread.title as string
      expect(title.length).toBeLessThanOrEqual(60)
      expect(title.endsWith("…")).toBe(true)
      expect(question.startsWith(title.slice(0, -1))).toBe(true)
    })

    it("is listed in activeStreamIds and untitled while streaming, titled and not listed after", async () => {
      server.model.script({ text: ["Once ", "upon ", "a ", "time."], chunkDelayMs: 100 })
      const response = await chat(server, "Tell me a story")
      const threadId = response.headers.get("x-thread-id")!
      const reader = sseReader(response)
      await reader.until(isChunk("text-delta"))

      expect(await activeStreamIds(server)).toContain(threadId)
      expect((await listThreads()).activeStreamIds).toContain(threadId)
      expect((await threadDetail(server, threadId)).body.thread.title).toBeNull()

      await reader.rest()
      expect(await activeStreamIds(server)).not.toContain(threadId)
      expect((await threadDetail(server, threadId)).body.thread.title).toBe("Tell me a story")
    })

    it("keeps its title when the conversation goes on", async () => {
      server.model.script({ text: "Hi!" }, { text: "Sure." })
      const first = await chat(server, "Hello assistant")
      const threadId = first.headers.get("x-thread-id")!
      await first.text()
      await (await chat(server, "Now something completely different", threadId)).text()
      expect((await threadDetail(server, threadId)).body.thread.title).toBe("Hello assistant")
    })
  })
})

describe("chat requests (validation, limits, model settings)", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  const threadCount = async () =>
    (await request(`${server.url}/api/threads?perPage=false`, { token: server.token })).body.total as number

  const patchConfig = async (body: unknown) => {
    const response = await request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body })
    expect(response.status).toBe(200)
  }

  describe("POST /api/chat: validation", () => {
    it.each([
      ["missing", {}],
      ["empty", { parts: [] }],
      ["a string", { parts: "hello" }],
      ["an object", { parts: { type: "text", text: "hello" } }],
      ["null", { parts: null }],
    ])("parts %s → 400 parts must be a non-empty array", async (_, body) => {
      const before = await threadCount()
      const response = await postChat(server, body)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual(partsRequired)
      expect(server.model.requests).toHaveLength(0)
      expect(await threadCount()).toBe(before)
    })

    it.each([
      ["no text part", [{ type: "file", mediaType: "image/png", url: pngDataUrl }], /text/],
      ["only blank text", [{ type: "text", text: "   " }], /text/],
      [
        "a file url that is not a data URL",
        [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", url: "https://example.com/cat.png" },
        ],
        /data URL/,
      ],
      [
        "a file part without mediaType",
        [
          { type: "text", text: "Look" },
          { type: "file", url: pngDataUrl },
        ],
        /mediaType/,
      ],
      [
        "a file part with a malformed mediaType",
        [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "png", url: pngDataUrl },
        ],
        /mediaType/,
      ],
      [
        "a data URL without ;base64 (issue 9)",
        [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", url: "data:image/png,iVBORw0KGgo" },
        ],
        /^parts\.1\.url: .*base64/,
      ],
      [
        "a data URL with invalid base64",
        [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", url: "data:image/png;base64,not base64!" },
        ],
        /^parts\.1\.url: .*invalid base64/,
      ],
      [
        "a data URL without a media type",
        [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", url: "data:;base64,iVBORw0KGgo=" },
        ],
        /^parts\.1\.url: .*media type/,
      ],
      ["an unknown part type", [{ type: "image", image: "cat.png" }], /./],
      ["a text part without text", [{ type: "text" }], /./],
    ])("%s → 400, nothing stored, the model not called", async (_, parts, message) => {
      const before = await threadCount()
      const response = await postChat(server, { parts })
      expect(response.status).toBe(400)
      expect((await response.json()).error).toMatch(message)
      expect(server.model.requests).toHaveLength(0)
      expect(await threadCount()).toBe(before)
    })

    it("a threadId that is not a plain identifier → 400", async () => {
      const response = await postChat(server, { parts: [{ type: "text", text: "Hi" }], threadId: "../../etc/passwd" })
      expect(response.status).toBe(400)
      expect((await response.json()).error).toMatch(/threadId/)
    })

    it("a body that is not JSON → 400", async () => {
      const response = await postChat(server, "{ parts: ")
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: expect.any(String) })
    })

    it("a file part with a data URL reaches the model and is stored with the message", async () => {
      server.model.script({ text: "A single pixel." })
      const parts = [
        { type: "text", text: "What is in this picture?" },
        { type: "file", mediaType: "image/png", url: pngDataUrl, filename: "pixel.png" },
      ]
      const response = await postChat(server, { parts })
      expect(response.status).toBe(200)
      const threadId = response.headers.get("x-thread-id")!
      await response.text()

      const user = server.model.requests[0]!.body.messages[1]!
      expect(user.role).toBe("user")
      expect(user.content).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: "text", text: "What is in this picture?" }),
          expect.objectContaining({ type: "image_url", image_url: expect.objectContaining({ url: pngDataUrl }) }),
        ]),
      )
      expect((await threadDetail(server, threadId)).body.messages[0].parts).toEqual(parts)
    })

    it("a file type the provider cannot take is a 415 naming it (not SPEC's 500: a client mistake)", async () => {
      const response = await postChat(server, {
        parts: [
          { type: "text", text: "Watch this" },
          { type: "file", mediaType: "video/mp4", url: "data:video/mp4;base64,UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==" },
        ],
      })
      expect(response.status).toBe(415)
      expect((await response.json()).error).toContain("video/mp4")
    })
  })

  describe("POST /api/chat: a rejected attachment does not poison its thread (issue 9)", () => {
    it("after a 415 for a file type the provider cannot take, the next message of the thread answers without it", async () => {
      // Accepted by the server (a video), refused by this provider, which takes only images.
      const zip = {
        type: "file",
        mediaType: "video/mp4",
        url: "data:video/mp4;base64,UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==",
        filename: "archive.zip",
      }
      const first = await postChat(server, { parts: [{ type: "text", text: "Unpack this" }, zip] })
      expect(first.status).toBe(415)
      const threadId = first.headers.get("x-thread-id")!
      await first.text()

      server.model.script({ text: "I could not open the archive." })
      const next = await chat(server, "Then just say hi", threadId)
      expect(next.status).toBe(200)
      expect(textOfChunks(chunksOf(await next.text()))).toBe("I could not open the archive.")
      const sent = JSON.stringify(server.model.requests.at(-1)!.body.messages)
      expect(sent).toContain("the attachment archive.zip was left out")
      expect(sent).not.toContain("UEsFBg")
      // The thread keeps the user's message as sent.
      expect((await threadDetail(server, threadId)).body.messages[0].parts).toContainEqual(zip)
    })
  })

  describe("POST /api/chat: size limit", () => {
    const withAttachment = (bytes: number) => ({
      parts: [
        { type: "text", text: "Here is a big file" },
        { type: "file", mediaType: "image/png", url: `data:image/png;base64,${"A".repeat(bytes)}` },
      ],
    })

    it("accepts a chat body over the general request limit but within the chat limit", async () => {
      server.model.script({ text: "Got it." })
      const response = await postChat(server, withAttachment(ServerConfig.defaultMaxBodyBytes + 1024))
      expect(response.status).toBe(200)
      await response.text()
    })

    it("a chat body over the chat limit → 413", async () => {
      const before = await threadCount()
      const response = await postChat(server, withAttachment(ServerConfig.defaultChatMaxBodyBytes))
      expect(response.status).toBe(413)
      expect(await response.json()).toEqual({ error: expect.stringContaining("too large") })
      expect(server.model.requests).toHaveLength(0)
      expect(await threadCount()).toBe(before)
    })
  })

  describe("authentication", () => {
    it.each([
      ["POST", "/api/chat"],
      ["GET", "/api/chat/some-thread/stream"],
      ["POST", "/api/chat/some-thread/stop"],
    ])("%s %s without a token → 401", async (method, path) => {
      const response = await request(`${server.url}${path}`, {
        method,
        ...(method === "POST" && path === "/api/chat" ? { body: { parts: [{ type: "text", text: "Hi" }] } } : {}),
      })
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
      expect(server.model.requests).toHaveLength(0)
    })

    it("POST /api/chat with an invalid token → 401", async () => {
      const response = await postChat(server, { parts: [{ type: "text", text: "Hi" }] }, { token: "not-a-token" })
      expect(response.status).toBe(401)
    })
  })

  describe("the model request", () => {
    it("the system prompt holds the personality, the identity's name and the time in the configured time zone", async () => {
      await patchConfig({
        timezone: "Asia/Tokyo",
        identity: { name: "Jarvis" },
        personality: { systemPrompt: "You are a terse butler." },
      })
      try {
        server.model.script({ text: "Sir." })
        const before = Date.now()
        await (await chat(server, "What time is it?")).text()
        const after = Date.now()

        const system = systemMessageOf(server.model.requests[0]!)
        expect(system).toContain("You are a terse butler.")
        expect(system).toContain("Jarvis")
        expect(system).toContain("Asia/Tokyo")
        // Tokyo is 9 hours from UTC: the clock shown is Tokyo's, not the server's.
        expect(
          [clockIn("Asia/Tokyo", before), clockIn("Asia/Tokyo", after)].some((clock) => system.includes(clock)),
        ).toBe(true)
        expect(system).not.toContain(clockIn("UTC", before))
      } finally {
        await patchConfig({ timezone: null, identity: null, personality: null })
      }
    })

    it("temperature and maxTokens of models.operator reach the model; unset, none is sent", async () => {
      server.model.script({ text: "Default." }, { text: "Tuned." })
      await (await chat(server, "Plain")).text()
      expect(server.model.requests[0]!.body).not.toHaveProperty("temperature")
      expect(server.model.requests[0]!.body).not.toHaveProperty("max_tokens")

      await patchConfig({ models: { operator: { temperature: 0.3, maxTokens: 123 } } })
      try {
        await (await chat(server, "Tuned")).text()
        expect(server.model.requests[1]!.body).toMatchObject({ model: "fake-model", temperature: 0.3, max_tokens: 123 })
      } finally {
        await patchConfig({ models: { operator: { temperature: null, maxTokens: null } } })
      }
    })
  })

  describe("the stream", () => {
    it("every event has an id counting up from 1, and the stream ends with data: [DONE]", async () => {
      server.model.script({ text: "One two three four." })
      const response = await chat(server, "Count")
      const events = parseSse(await response.text())
      const last = events.at(-1)
      expect(last).toEqual({ id: undefined, data: "[DONE]" })
      const ids = events.slice(0, -1).map((event) => event.id)
      expect(ids).toEqual(ids.map((_, index) => String(index + 1)))
    })

    it("carries AI SDK UI message chunks: start with {runId, threadId}, text-start/delta/end, finish", async () => {
      server.model.script({ text: ["Hello", " there", "."] })
      const response = await chat(server, "Greet me")
      expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
      expect(response.headers.get("cache-control")).toContain("no-cache")
      const threadId = response.headers.get("x-thread-id")!
      const chunks = chunksOf(await response.text())

      expect(chunks[0]).toEqual({
        type: "start",
        messageId: expect.any(String),
        messageMetadata: { runId: expect.stringMatching(uuid), threadId },
      })
      const types = chunks.map((chunk) => chunk.type)
      expect(types.filter((type) => type.startsWith("text-"))).toEqual([
        "text-start",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-end",
      ])
      expect(types.at(-1)).toBe("finish")
      expect(types).not.toContain("error")
      expect(textOfChunks(chunks)).toBe("Hello there.")
      const textIds = new Set(chunks.filter((chunk) => chunk.type.startsWith("text-")).map((chunk) => chunk.id))
      expect(textIds.size).toBe(1)
    })

    it("an AI SDK client reads it into the assistant message that is stored", async () => {
      server.model.script({ text: "Read me with the SDK." })
      const response = await chat(server, "Use the SDK")
      const threadId = response.headers.get("x-thread-id")!
      const message = await readWithAiSdk(response)

      expect(message).toBeDefined()
      expect(message!.role).toBe("assistant")
      expect(textOfParts(message!.parts as any)).toBe("Read me with the SDK.")
      expect(message!.metadata).toEqual({ runId: expect.stringMatching(uuid), threadId })
      // What the client built is exactly what the server stored: history round-trips unchanged.
      const stored = (await threadDetail(server, threadId)).body.messages[1]
      // (JSON drops the SDK's `providerMetadata: undefined`, as any client's storage would.)
      expect(stored).toEqual(JSON.parse(JSON.stringify(message)))
    })

    it("the response's first write carries the first text delta, and every delta is written before the run's end", async () => {
      // The model sends its whole answer at once: the deltas must still go out before the
      // commit and the after-turn work, not in one write with `finish` at the end.
      server.model.script({ text: ["one ", "two ", "three"] })
      const writes = await rawWrites(server, "All at once")
      expect(writes[0]).toContain('"text-delta"')
      const lastDelta = writes.findLastIndex((write) => write.includes('"text-delta"'))
      const finish = writes.findIndex((write) => write.includes('"type":"finish"'))
      expect(finish).toBeGreaterThan(lastDelta)
    })

    it("is relayed chunk by chunk, not buffered until the end", async () => {
      server.model.script({ text: ["slow ", "and ", "steady"], chunkDelayMs: 200 })
      const response = await chat(server, "Take it slow")
      const reader = sseReader(response)
      const first = await reader.until(isChunk("text-delta"))
      expect(JSON.parse(first.data).delta).toBe("slow ")
      expect(reader.events.some(isChunk("finish"))).toBe(false)
      await reader.rest()
    })
  })
})

describe("titles named by the model", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ modelTitles: true })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  const isTitleRequest = (recorded: RecordedRequest) =>
    String(recorded.body.messages[0]?.content ?? "").startsWith("You name conversations")
  const titleOf = async (threadId: string) => (await threadDetail(server, threadId)).body.thread.title as string | null

  it("after the first response the title becomes the model's answer to the title request", async () => {
    server.model.script({ text: "Kyoto Autumn Trip", match: isTitleRequest }, { text: "Start with Fushimi Inari." })
    const response = await chat(server, "Plan a trip to Kyoto in autumn")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()

    await eventually(async () => ((await titleOf(threadId)) === "Kyoto Autumn Trip" ? true : undefined))
    const titleRequest = server.model.requests.find(isTitleRequest)!
    expect(JSON.stringify(titleRequest.body.messages)).toContain("Plan a trip to Kyoto in autumn")
    expect(JSON.stringify(titleRequest.body.messages)).toContain("Start with Fushimi Inari.")
  })

  it("the model's answer is cleaned into one line without quotes or final period", async () => {
    server.model.script(
      { text: '"Weekend Groceries."\nHope that helps!', match: isTitleRequest },
      { text: "Milk, eggs." },
    )
    const response = await chat(server, "What should I buy this weekend?")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    await eventually(async () => ((await titleOf(threadId)) === "Weekend Groceries" ? true : undefined))
  })

  it("when the title request fails, the first words stay the title", async () => {
    server.model.script({ error: { status: 400, message: "no titles today" }, match: isTitleRequest }, { text: "Hi." })
    const response = await chat(server, "Hello from a thread without a model title")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    await eventually(() => (server.model.requests.some(isTitleRequest) ? true : undefined))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await titleOf(threadId)).toBe("Hello from a thread without a model title")
  })

  it("later responses do not ask for a title again", async () => {
    server.model.script({ text: "Greeting", match: isTitleRequest }, { text: "Hello." }, { text: "Still here." })
    const first = await chat(server, "Hello")
    const threadId = first.headers.get("x-thread-id")!
    await first.text()
    await eventually(async () => ((await titleOf(threadId)) === "Greeting" ? true : undefined))
    await (await chat(server, "Are you still there?", threadId)).text()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(server.model.requests.filter(isTitleRequest)).toHaveLength(1)
    expect(await titleOf(threadId)).toBe("Greeting")
  })
})

import { Threads } from "@aide/kernel"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Consecutive writes land on distinct milliseconds, so "most recent" is well defined. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3))

const textMessage = (id: string, role: "user" | "assistant", text: string): Threads.StoredMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
})

describe.each(storageKinds)("threads API (%s)", (storage) => {
  let server: TestServer
  let token: string

  /** Runs an effect against the server's own `Threads` service: there is no chat endpoint to seed with. */
  const withThreads = <A, E>(use: (threads: Threads.Threads["Type"]) => Effect.Effect<A, E>) =>
    server.run(Effect.flatMap(Threads.Threads, use))

  /** A root thread holding m1…mN (user, assistant, user…). */
  const seedConversation = async (id: string, count: number) => {
    await withThreads((threads) =>
      Effect.gen(function* () {
        yield* threads.ensure(id)
        for (let n = 1; n <= count; n++) {
          yield* threads.saveMessage(id, textMessage(`m${n}`, n % 2 === 1 ? "user" : "assistant", `message ${n}`))
        }
      }),
    )
    await tick()
    return id
  }

  const api = (
    path: string,
    init: { readonly method?: string; readonly body?: unknown; readonly token?: string } = {},
  ) => request(`${server.url}${path}`, { token, ...init })

  const fork = (threadId: string, body: unknown) =>
    api(`/api/threads/${encodeURIComponent(threadId)}/fork`, { method: "POST", body })

  beforeAll(async () => {
    server = await startServer({ storage })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())
  beforeEach(() =>
    server.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM messages`
        yield* sql`DELETE FROM threads`
      }),
    ),
  )

  describe("GET /api/threads", () => {
    it("answers an empty first page with the paging fields and no active streams", async () => {
      const response = await api("/api/threads")
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        threads: [],
        total: 0,
        page: 0,
        perPage: 50,
        hasMore: false,
        activeStreamIds: [],
      })
    })

    it("lists root threads only, as SPEC thread summaries, most recently updated first", async () => {
      await seedConversation("older", 2)
      await seedConversation("newer", 2)
      const branch = (await fork("older", { messageId: "m2" })).body.thread.id
      await withThreads((threads) => threads.setTitle("newer", "Newer title"))

      const response = await api("/api/threads")
      expect(response.status).toBe(200)
      expect(response.body.total).toBe(2)
      expect(response.body.threads).toEqual([
        {
          id: "older",
          title: null,
          createdAt: expect.stringMatching(isoTimestamp),
          updatedAt: expect.stringMatching(isoTimestamp),
          activeThreadId: branch,
          threadIds: ["older", branch],
        },
        {
          id: "newer",
          title: "Newer title",
          createdAt: expect.stringMatching(isoTimestamp),
          updatedAt: expect.stringMatching(isoTimestamp),
          activeThreadId: "newer",
          threadIds: ["newer"],
        },
      ])
      const [older, newer] = response.body.threads
      expect(older.updatedAt > newer.updatedAt).toBe(true)
      expect(older.updatedAt > older.createdAt).toBe(true)
    })

    it("pages from 0 with perPage, telling whether more pages follow", async () => {
      for (const id of ["t1", "t2", "t3", "t4", "t5"]) await seedConversation(id, 1)
      const ids = (body: any) => body.threads.map((thread: any) => thread.id)

      const first = await api("/api/threads?page=0&perPage=2")
      expect(first.status).toBe(200)
      expect(ids(first.body)).toEqual(["t5", "t4"])
      expect(first.body).toMatchObject({ total: 5, page: 0, perPage: 2, hasMore: true })

      const second = await api("/api/threads?page=1&perPage=2")
      expect(ids(second.body)).toEqual(["t3", "t2"])
      expect(second.body).toMatchObject({ total: 5, page: 1, perPage: 2, hasMore: true })

      const last = await api("/api/threads?page=2&perPage=2")
      expect(ids(last.body)).toEqual(["t1"])
      expect(last.body).toMatchObject({ total: 5, page: 2, perPage: 2, hasMore: false })

      const beyond = await api("/api/threads?page=9&perPage=2")
      expect(beyond.body).toMatchObject({ threads: [], total: 5, page: 9, hasMore: false })

      const defaultPage = await api("/api/threads?perPage=3")
      expect(ids(defaultPage.body)).toEqual(["t5", "t4", "t3"])
      expect(defaultPage.body).toMatchObject({ page: 0, perPage: 3, hasMore: true })
    })

    it("perPage=false returns every root thread on one page", async () => {
      for (let n = 0; n < 55; n++) {
        await withThreads((threads) => threads.ensure(`bulk-${String(n).padStart(2, "0")}`))
      }
      const paged = await api("/api/threads")
      expect(paged.body).toMatchObject({ total: 55, perPage: 50, hasMore: true })
      expect(paged.body.threads).toHaveLength(50)

      const all = await api("/api/threads?perPage=false")
      expect(all.status).toBe(200)
      expect(all.body).toMatchObject({ total: 55, page: 0, perPage: false, hasMore: false, activeStreamIds: [] })
      expect(all.body.threads).toHaveLength(55)
    })

    it.each([
      ["page=-1", "page must be a non-negative integer"],
      ["page=abc", "page must be a non-negative integer"],
      ["page=1.5", "page must be a non-negative integer"],
      ["page=", "page must be a non-negative integer"],
      ["perPage=0", "perPage must be a positive integer or false"],
      ["perPage=-5", "perPage must be a positive integer or false"],
      ["perPage=ten", "perPage must be a positive integer or false"],
      ["perPage=true", "perPage must be a positive integer or false"],
      ["perPage=2.5", "perPage must be a positive integer or false"],
    ])("?%s answers 400 { error: %j }", async (query, error) => {
      const response = await api(`/api/threads?${query}`)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error })
    })
  })

  describe("GET /api/threads/:id", () => {
    it("answers the thread, its full message history, its forks and forkInfo null for a root", async () => {
      await seedConversation("root", 3)
      const parts = [
        { type: "step-start" },
        { type: "reasoning", text: "let me think", providerMetadata: { p: { signature: "sig" } } },
        {
          type: "tool-weather",
          toolCallId: "call-1",
          state: "output-available",
          input: { city: "Zürich" },
          output: { temperature: -3.5, conditions: ["snow", null] },
        },
        { type: "text", text: "It snows in Zürich ❄️" },
      ]
      await withThreads((threads) =>
        threads.saveMessage("root", { id: "m4", role: "assistant", parts, metadata: { model: "fake" } }),
      )
      await withThreads((threads) => threads.setTitle("root", "Weather"))
      const first = (await fork("root", { messageId: "m3" })).body.thread.id
      await withThreads((threads) => threads.setTitle(first, "Try again"))
      const second = (await fork("root", { messageId: "m3" })).body.thread.id

      const response = await api("/api/threads/root")
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        thread: {
          id: "root",
          title: "Weather",
          createdAt: expect.stringMatching(isoTimestamp),
          updatedAt: expect.stringMatching(isoTimestamp),
        },
        messages: [
          { id: "m1", role: "user", parts: [{ type: "text", text: "message 1" }] },
          { id: "m2", role: "assistant", parts: [{ type: "text", text: "message 2" }] },
          { id: "m3", role: "user", parts: [{ type: "text", text: "message 3" }] },
          { id: "m4", role: "assistant", parts, metadata: { model: "fake" } },
        ],
        forks: { m3: [{ id: first, title: "Try again" }, { id: second }] },
        forkInfo: null,
      })
    })

    it("answers forkInfo for a branch: source thread, fork point index and sibling branches", async () => {
      await seedConversation("root", 4)
      const first = (await fork("root", { messageId: "m3" })).body.thread.id
      const second = (await fork("root", { messageId: "m3" })).body.thread.id
      await fork("root", { messageId: "m2" })

      const response = await api(`/api/threads/${first}`)
      expect(response.status).toBe(200)
      expect(response.body.messages.map((message: any) => message.id)).toEqual(["m1", "m2"])
      expect(response.body.forks).toEqual({})
      expect(response.body.forkInfo).toEqual({ sourceThreadId: "root", forkPointIndex: 2, siblings: [{ id: second }] })
    })

    it("answers an empty thread with no messages", async () => {
      await withThreads((threads) => threads.ensure("empty"))
      const response = await api("/api/threads/empty")
      expect(response.status).toBe(200)
      expect(response.body).toMatchObject({ messages: [], forks: {}, forkInfo: null })
    })

    it("answers 404 Thread not found for an unknown id", async () => {
      const response = await api("/api/threads/no-such-thread")
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "Thread not found" })
    })
  })

  describe("POST /api/threads/:id/fork", () => {
    it("clones the messages before the fork point into a new thread: 200 { thread, clonedMessageCount }", async () => {
      await seedConversation("root", 5)
      const response = await fork("root", { messageId: "m4" })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        thread: {
          id: expect.any(String),
          createdAt: expect.stringMatching(isoTimestamp),
          updatedAt: expect.stringMatching(isoTimestamp),
        },
        clonedMessageCount: 3,
      })
      const branch = await api(`/api/threads/${response.body.thread.id}`)
      expect(branch.status).toBe(200)
      expect(branch.body.messages.map((message: any) => message.id)).toEqual(["m1", "m2", "m3"])
      expect(branch.body.forkInfo).toEqual({ sourceThreadId: "root", forkPointIndex: 3, siblings: [] })
      const source = await api("/api/threads/root")
      expect(source.body.messages).toHaveLength(5)
      expect(source.body.forks).toEqual({ m4: [{ id: response.body.thread.id }] })
    })

    it("forks a branch again; the family stays one listed thread", async () => {
      await seedConversation("root", 3)
      const branch = (await fork("root", { messageId: "m3" })).body.thread.id
      const nested = await fork(branch, { messageId: "m2" })
      expect(nested.status).toBe(200)
      expect(nested.body.clonedMessageCount).toBe(1)
      const listed = await api("/api/threads")
      expect(listed.body.total).toBe(1)
      expect(listed.body.threads[0].threadIds).toEqual(["root", branch, nested.body.thread.id])
      expect((await api(`/api/threads/${nested.body.thread.id}`)).body.forkInfo).toEqual({
        sourceThreadId: branch,
        forkPointIndex: 1,
        siblings: [],
      })
    })

    it.each([
      ["an empty object", {}],
      ["a number", { messageId: 42 }],
      ["null", { messageId: null }],
      ["an object", { messageId: { id: "m1" } }],
      ["a JSON array body", [{ messageId: "m1" }]],
      ["a JSON string body", "m1"],
    ])("answers 400 messageId is required for %s", async (_name, body) => {
      await seedConversation("root", 2)
      const response = await fork("root", typeof body === "string" ? JSON.stringify(body) : body)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "messageId is required" })
    })

    it("answers 400 messageId is required when there is no body at all", async () => {
      await seedConversation("root", 2)
      const response = await api("/api/threads/root/fork", { method: "POST" })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "messageId is required" })
    })

    it("answers 404 Thread not found for an unknown thread", async () => {
      const response = await fork("no-such-thread", { messageId: "m1" })
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "Thread not found" })
    })

    it("answers 404 Message not found in thread for a message of another thread or none", async () => {
      await seedConversation("root", 2)
      await seedConversation("other", 3)
      for (const messageId of ["m3", "nope", ""]) {
        const response = await fork("root", { messageId })
        expect(response.status).toBe(404)
        expect(response.body).toEqual({ error: "Message not found in thread" })
      }
      expect((await api("/api/threads")).body.threads.map((thread: any) => thread.threadIds)).toEqual([
        ["other"],
        ["root"],
      ])
    })
  })

  describe("PATCH /api/threads/:id", () => {
    it("renames the thread and answers it; null clears the title", async () => {
      await seedConversation("root", 1)
      const renamed = await api("/api/threads/root", { method: "PATCH", body: { title: "Holiday plans" } })
      expect(renamed.status).toBe(200)
      expect(renamed.body).toEqual({
        id: "root",
        title: "Holiday plans",
        createdAt: expect.stringMatching(isoTimestamp),
        updatedAt: expect.stringMatching(isoTimestamp),
      })
      expect((await api("/api/threads")).body.threads[0].title).toBe("Holiday plans")
      expect((await api("/api/threads/root")).body.thread.title).toBe("Holiday plans")

      const cleared = await api("/api/threads/root", { method: "PATCH", body: { title: null } })
      expect(cleared.status).toBe(200)
      expect(cleared.body.title).toBeNull()
      expect((await api("/api/threads/root")).body.thread.title).toBeNull()
    })

    it("renames a branch; its parent lists it with the title", async () => {
      await seedConversation("root", 2)
      const branch = (await fork("root", { messageId: "m2" })).body.thread.id
      expect((await api(`/api/threads/${branch}`, { method: "PATCH", body: { title: "Other idea" } })).status).toBe(200)
      expect((await api("/api/threads/root")).body.forks).toEqual({ m2: [{ id: branch, title: "Other idea" }] })
    })

    it.each([
      [{}, "title is required"],
      [{ title: 5 }, "title must be a string or null"],
      [{ title: ["a"] }, "title must be a string or null"],
      [[], "request body must be a JSON object"],
    ])("answers 400 for %j: %s", async (body, error) => {
      await seedConversation("root", 1)
      const response = await api("/api/threads/root", { method: "PATCH", body })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error })
    })

    it("answers 404 Thread not found for an unknown id", async () => {
      const response = await api("/api/threads/no-such-thread", { method: "PATCH", body: { title: "x" } })
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "Thread not found" })
    })
  })

  describe("DELETE /api/threads/:id", () => {
    it("deletes a root thread with its messages and every branch: { success: true }", async () => {
      await seedConversation("root", 3)
      await seedConversation("kept", 1)
      const branch = (await fork("root", { messageId: "m3" })).body.thread.id
      const nested = (await fork(branch, { messageId: "m2" })).body.thread.id

      const response = await api("/api/threads/root", { method: "DELETE" })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ success: true })
      for (const id of ["root", branch, nested]) {
        expect((await api(`/api/threads/${id}`)).body).toEqual({ error: "Thread not found" })
      }
      expect((await api("/api/threads")).body).toMatchObject({ total: 1, threads: [{ id: "kept" }] })
      const left = await server.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ readonly threadId: string }>`
          SELECT DISTINCT thread_id AS "threadId" FROM messages`,
        ),
      )
      expect(left).toEqual([{ threadId: "kept" }])
    })

    it("deletes a branch and its own branches, leaving its source", async () => {
      await seedConversation("root", 3)
      const branch = (await fork("root", { messageId: "m3" })).body.thread.id
      const nested = (await fork(branch, { messageId: "m2" })).body.thread.id
      expect((await api(`/api/threads/${branch}`, { method: "DELETE" })).body).toEqual({ success: true })
      expect((await api(`/api/threads/${nested}`)).status).toBe(404)
      const root = await api("/api/threads/root")
      expect(root.status).toBe(200)
      expect(root.body.messages).toHaveLength(3)
      expect(root.body.forks).toEqual({})
      expect((await api("/api/threads")).body.threads[0].threadIds).toEqual(["root"])
    })

    it("answers 404 Thread not found for an unknown id, and for a thread already deleted", async () => {
      await seedConversation("root", 1)
      expect((await api("/api/threads/root", { method: "DELETE" })).status).toBe(200)
      for (const id of ["root", "no-such-thread"]) {
        const response = await api(`/api/threads/${id}`, { method: "DELETE" })
        expect(response.status).toBe(404)
        expect(response.body).toEqual({ error: "Thread not found" })
      }
    })
  })

  describe("authentication", () => {
    it.each([
      ["GET", "/api/threads", undefined],
      ["GET", "/api/threads?perPage=false", undefined],
      ["GET", "/api/threads/root", undefined],
      ["POST", "/api/threads/root/fork", { messageId: "m1" }],
      ["PATCH", "/api/threads/root", { title: "x" }],
      ["DELETE", "/api/threads/root", undefined],
    ])("%s %s answers 401 unauthorized without a token and changes nothing", async (method, path, body) => {
      await seedConversation("root", 1)
      const response = await request(`${server.url}${path}`, { method, ...(body === undefined ? {} : { body }) })
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
      const detail = await api("/api/threads/root")
      expect(detail.body).toMatchObject({ thread: { title: null }, forks: {} })
    })
  })
})

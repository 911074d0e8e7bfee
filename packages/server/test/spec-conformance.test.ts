import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, startChatServer } from "./support/chat.js"
import { password, request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

/**
 * SPEC.md read "to the letter" by someone who has only the SPEC: the corners a test author
 * probes (path variants the router accepts, encoded path parameters, HEAD, query strings,
 * browsers' CORS preflights) and the exact shapes of the resources.
 */

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

describe("SPEC Limits: the budget belongs to the route, not to the spelling of its URL", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
    await setup(server)
  })
  afterAll(() => server.close())

  it("counts /api/auth/login/, //api/auth/login, /API/auth/login and /api/auth/%6Cogin against one limit of 5", async () => {
    // Every one of these reaches the login handler (the router ignores trailing and duplicate
    // slashes and case, and decodes the path); none may be a way around the limit.
    const variants = [
      "/api/auth/login",
      "/api/auth/login/",
      "//api/auth/login",
      "/API/auth/login",
      "/api/auth/%6Cogin",
      "/api/auth/login?x=1",
    ]
    const statuses: Array<number> = []
    const remaining: Array<string | null> = []
    for (const path of variants) {
      const response = await request(`${server.url}${path}`, { body: { password: "wrong password" } })
      statuses.push(response.status)
      remaining.push(response.headers.get("x-ratelimit-remaining"))
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    expect(remaining).toEqual(["4", "3", "2", "1", "0", "0"])
    // The owner's correct password is refused too, whatever the spelling: the window is spent.
    const blocked = await request(`${server.url}/api/auth/login/`, { body: { password } })
    expect(blocked.status).toBe(429)
    expect(blocked.body).toEqual({ error: "too_many_requests" })
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/)
  })
})

describe.each(storageKinds)("SPEC resources and endpoints, to the letter (%s)", (storage) => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ storage })
    ;({ token } = await setup(server))
  })
  afterAll(() => server.close())

  it("GET / answers with the status object for HEAD, a query string and a trailing slash alike", async () => {
    const status = await request(`${server.url}/?probe=1`, { token })
    expect(status.status).toBe(200)
    expect(status.body).toEqual({
      name: expect.any(String),
      version: expect.any(String),
      runtime: expect.any(String),
      serverless: false,
      auth: { setup: true, authenticated: true },
    })
    const head = await fetch(`${server.url}/`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("content-type")).toMatch(/^application\/json/)
  })

  it("token pair and session fields have the SPEC names and types, with ISO 8601 timestamps", async () => {
    const login = await request(`${server.url}/api/auth/login`, {
      body: { password },
      headers: { "user-agent": "spec-conformance" },
    })
    expect(login.status).toBe(200)
    expect(Object.keys(login.body).sort()).toEqual(["expiresAt", "refreshExpiresAt", "refreshToken", "token"])
    expect(login.body.expiresAt).toMatch(iso)
    expect(login.body.refreshExpiresAt).toMatch(iso)
    const minutes = (Date.parse(login.body.expiresAt) - Date.now()) / 60_000
    expect(minutes).toBeGreaterThan(14)
    expect(minutes).toBeLessThanOrEqual(15)
    const days = (Date.parse(login.body.refreshExpiresAt) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.99)
    expect(days).toBeLessThanOrEqual(7)

    const sessions = await request(`${server.url}/api/auth/sessions`, { token: login.body.token })
    expect(sessions.status).toBe(200)
    const current = sessions.body.sessions.find((session: { current: boolean }) => session.current)
    expect(current).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(iso),
      expiresAt: expect.stringMatching(iso),
      userAgent: "spec-conformance",
      ip: "127.0.0.1",
      current: true,
    })
  })

  it("DELETE /api/auth/sessions/:id with an unknown (or URL-encoded) id is 404 session_not_found", async () => {
    const response = await request(`${server.url}/api/auth/sessions/${encodeURIComponent("no such/session")}`, {
      method: "DELETE",
      token,
    })
    expect(response.status).toBe(404)
    expect(response.body).toEqual({ error: "session_not_found" })
  })

  it("GET /api/threads has every SPEC field; perPage=false answers the boolean false", async () => {
    const all = await request(`${server.url}/api/threads?perPage=false`, { token })
    expect(all.status).toBe(200)
    expect(all.body).toEqual({
      threads: expect.any(Array),
      total: expect.any(Number),
      page: 0,
      perPage: false,
      hasMore: false,
      activeStreamIds: [],
    })
    const paged = await request(`${server.url}/api/threads/`, { token })
    expect(paged.status).toBe(200)
    expect(typeof paged.body.perPage).toBe("number")
    expect(typeof paged.body.page).toBe("number")
  })

  it("thread errors carry the exact SPEC strings, also for URL-encoded ids", async () => {
    const id = encodeURIComponent("no such thread/é")
    for (const method of ["GET", "DELETE"]) {
      const response = await request(`${server.url}/api/threads/${id}`, { method, token })
      expect(response.status, method).toBe(404)
      expect(response.body, method).toEqual({ error: "Thread not found" })
    }
    const noBody = await request(`${server.url}/api/threads/${id}/fork`, { method: "POST", token })
    expect(noBody.status).toBe(400)
    expect(noBody.body).toEqual({ error: "messageId is required" })
    const notString = await request(`${server.url}/api/threads/${id}/fork`, { token, body: { messageId: 42 } })
    expect(notString.status).toBe(400)
    expect(notString.body).toEqual({ error: "messageId is required" })
  })

  it("GET /api/models lists providers with exactly the SPEC fields", async () => {
    const response = await request(`${server.url}/api/models`, { token })
    expect(response.status).toBe(200)
    expect(response.body.providers.length).toBeGreaterThan(0)
    for (const provider of response.body.providers) {
      expect(Object.keys(provider).sort()).toEqual([
        "configured",
        "docUrl",
        "envVars",
        "gateway",
        "id",
        "models",
        "name",
      ])
      expect(provider.gateway).toBeNull()
      expect(typeof provider.configured).toBe("boolean")
      expect(provider.envVars.every((name: unknown) => typeof name === "string")).toBe(true)
    }
  })

  it("GET /api/config has every SPEC section, timezone UTC by default", async () => {
    const response = await request(`${server.url}/api/config`, { token })
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(
      [
        "identity",
        "timezone",
        "personality",
        "models",
        "plugins",
        "memory",
        "schedule",
        "onboardingComplete",
        "mcpServers",
        // Beyond SPEC's sections: Aide's own MCP endpoint, `mcpServer.enabled` as issue 36 asks
        // (docs/configuration.md, docs/mcp-server.md).
        "mcpServer",
      ].sort(),
    )
    expect(response.body.timezone).toBe("UTC")
  })

  it("SPEC error strings for unreadable bodies hold for every spelling of the path", async () => {
    for (const path of ["/api/auth/refresh", "/api/auth/refresh/", "/API/auth/%72efresh"]) {
      const response = await request(`${server.url}${path}`, { body: "{not json" })
      expect(response.status, path).toBe(400)
      expect(response.body, path).toEqual({ error: "refresh_token_required" })
    }
    const fork = await request(`${server.url}/api/threads/some-thread/fork/`, { token, body: "{not json" })
    expect(fork.status).toBe(400)
    expect(fork.body).toEqual({ error: "messageId is required" })
  })

  it("protected routes answer 401 unauthorized without a token, whatever the spelling of the path", async () => {
    for (const path of ["/api/threads", "/api/threads/", "/API/threads", "/api/models", "/api/config"]) {
      const response = await request(`${server.url}${path}`)
      expect(response.status, path).toBe(401)
      expect(response.body, path).toEqual({ error: "unauthorized" })
    }
  })

  it("without AIDE_CORS_ORIGINS no CORS header is ever sent", async () => {
    const preflight = await fetch(`${server.url}/api/threads`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    })
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
    const response = await fetch(`${server.url}/`, { headers: { origin: "https://evil.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("CORS with AIDE_CORS_ORIGINS (a browser-based console on another origin)", () => {
  const consoleOrigin = "https://console.example"
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ corsOrigins: [consoleOrigin, "http://localhost:5173"] })
    ;({ token } = await setup(server))
  })
  afterAll(() => server.close())

  it("answers the preflight of an allowed origin with 204 and the headers a client needs", async () => {
    const response = await fetch(`${server.url}/api/chat`, {
      method: "OPTIONS",
      headers: {
        origin: consoleOrigin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get("access-control-allow-origin")).toBe(consoleOrigin)
    expect(response.headers.get("access-control-allow-methods")).toContain("POST")
    expect(response.headers.get("access-control-allow-headers")).toContain("authorization")
    expect(response.headers.get("access-control-allow-headers")).toContain("content-type")
    expect(response.headers.get("access-control-allow-credentials")).toBeNull()
  })

  it("lets an allowed origin read responses, errors and the SPEC headers (X-Thread-Id, rate limits)", async () => {
    const ok = await fetch(`${server.url}/api/threads`, {
      headers: { origin: consoleOrigin, authorization: `Bearer ${token}` },
    })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("access-control-allow-origin")).toBe(consoleOrigin)
    const exposed = ok.headers.get("access-control-expose-headers") ?? ""
    for (const header of ["x-thread-id", "x-ratelimit-limit", "x-ratelimit-remaining", "retry-after"]) {
      expect(exposed).toContain(header)
    }
    const unauthorized = await fetch(`${server.url}/api/threads`, { headers: { origin: consoleOrigin } })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(consoleOrigin)
  })

  it("gives another origin nothing", async () => {
    const preflight = await fetch(`${server.url}/api/chat`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    })
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
    const response = await fetch(`${server.url}/`, { headers: { origin: "https://evil.example" } })
    // Refused outright (issue 9 item 3), and still without CORS headers.
    expect(response.status).toBe(403)
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("SPEC Chat and Threads over the wire", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())

  it("a client-chosen thread id with reserved characters round-trips through URL-encoded paths", async () => {
    const threadId = "Chat:2024.01_A-b"
    server.model.script({ text: "Hello." })
    const response = await chat(server, "Hi", threadId)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(response.headers.get("x-thread-id")).toBe(threadId)
    await response.text()

    const encoded = encodeURIComponent(threadId)
    const detail = await request(`${server.url}/api/threads/${encoded}`, { token: server.token })
    expect(detail.status).toBe(200)
    expect(detail.body.thread).toEqual({
      id: threadId,
      title: expect.any(String),
      createdAt: expect.stringMatching(iso),
      updatedAt: expect.stringMatching(iso),
    })
    expect(detail.body.forkInfo).toBeNull()
    expect(detail.body.forks).toEqual({})
    expect(detail.body.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"])

    const resumed = await fetch(`${server.url}/api/chat/${encoded}/stream`, {
      headers: { authorization: `Bearer ${server.token}` },
    })
    // Finished a moment ago: replayed from the buffer (200) or, once dropped, 204.
    expect([200, 204]).toContain(resumed.status)
    if (resumed.status === 200) expect(resumed.headers.get("x-thread-id")).toBe(threadId)
    await resumed.text()

    const assistant = detail.body.messages[1].id
    const fork = await request(`${server.url}/api/threads/${encoded}/fork`, {
      token: server.token,
      body: { messageId: assistant },
    })
    expect(fork.status).toBe(200)
    expect(fork.body).toEqual({
      thread: { id: expect.any(String), createdAt: expect.stringMatching(iso), updatedAt: expect.stringMatching(iso) },
      clonedMessageCount: 1,
    })
    const missing = await request(`${server.url}/api/threads/${encoded}/fork`, {
      token: server.token,
      body: { messageId: "no-such-message" },
    })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: "Message not found in thread" })

    const list = await request(`${server.url}/api/threads?perPage=false`, { token: server.token })
    const summary = list.body.threads.find((thread: { id: string }) => thread.id === threadId)
    expect(summary).toEqual({
      id: threadId,
      title: expect.any(String),
      createdAt: expect.stringMatching(iso),
      updatedAt: expect.stringMatching(iso),
      activeThreadId: fork.body.thread.id,
      threadIds: [threadId, fork.body.thread.id],
    })

    const deleted = await request(`${server.url}/api/threads/${encoded}`, { method: "DELETE", token: server.token })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ success: true })
    const gone = await request(`${server.url}/api/threads/${encoded}`, { token: server.token })
    expect(gone.status).toBe(404)
    expect(gone.body).toEqual({ error: "Thread not found" })
  })

  it("every threadId POST /api/chat accepts is reachable at /api/threads/:id (the router caps parameters at 100)", async () => {
    const longest = "t".repeat(100)
    server.model.script({ text: "Hello." })
    const response = await chat(server, "Hi", longest)
    expect(response.status).toBe(200)
    await response.text()
    const detail = await request(`${server.url}/api/threads/${longest}`, { token: server.token })
    expect(detail.status).toBe(200)
    expect(detail.body.thread.id).toBe(longest)

    const tooLong = await chat(server, "Hi", "t".repeat(101))
    expect(tooLong.status).toBe(400)
    expect((await tooLong.json()).error).toMatch(/^threadId must be/)
  })
})

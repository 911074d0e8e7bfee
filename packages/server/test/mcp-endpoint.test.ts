import { approvalProbe } from "@aide/testing/fixtures"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  ElicitRequestSchema,
  type Progress,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ChatTestServer, eventually, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

const allTools = [
  "ask",
  "approve",
  "threads_search",
  "memory_read",
  "memory_update",
  "inbox_list",
  "inbox_mark_read",
  "schedule_create",
  "schedule_list",
  "schedule_delete",
  "notify",
]

let server: ChatTestServer
let tool: ReturnType<typeof approvalProbe>
const open: Array<Client> = []

const configure = (mcpServer: unknown) =>
  request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body: { mcpServer } })

const connect = async (
  options: { readonly elicitation?: boolean; readonly token?: string; readonly sessionId?: string } = {},
) => {
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    { capabilities: options.elicitation === true ? { elicitation: { form: {} } } : {} },
  )
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${options.token ?? server.token}` } },
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  })
  await client.connect(transport)
  open.push(client)
  return { client, transport }
}

/** The text of a resource's first content. */
const textOf = (contents: ReadonlyArray<object>) => String((contents[0] as { text?: string } | undefined)?.text)

/** The JSON a tool answered (its structured content). */
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args })
  return result as { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> }
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${server.token}`,
      ...headers,
    },
    body: JSON.stringify(body),
  })

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})

beforeAll(async () => {
  tool = approvalProbe()
  server = await startChatServer({ kernel: { tools: tool.tools } })
})
afterAll(async () => {
  await Promise.allSettled(open.map((client) => client.close()))
  await server.close()
})
beforeEach(() => {
  server.model.reset()
  tool.executions.length = 0
})

describe("/mcp while mcpServer.enabled is off (the default)", () => {
  it("answers 404, with or without a token", async () => {
    expect((await post(initialize("2025-11-25"))).status).toBe(404)
    expect((await post(initialize("2025-11-25"), { authorization: "" })).status).toBe(404)
  })
})

describe("/mcp, on", () => {
  beforeAll(async () => {
    expect((await configure({ enabled: true })).status).toBe(200)
  })

  it("without a valid token is 401 with the protected-resource metadata challenge", async () => {
    for (const authorization of ["", "Bearer nope"]) {
      const response = await post(initialize("2025-11-25"), { authorization })
      expect(response.status).toBe(401)
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp"`,
      )
    }
  })

  it("refuses a foreign Origin (DNS rebinding, cross-site pages) with 403", async () => {
    const response = await post(initialize("2025-11-25"), { origin: "http://evil.example" })
    expect(response.status).toBe(403)
  })

  it("negotiates the current revision and older ones the SDK supports", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
      const response = await post(initialize(version))
      expect(response.status).toBe(200)
      expect(response.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/)
      expect(await response.text()).toContain(`"protocolVersion":"${version}"`)
    }
  })

  it("a request of an unknown session is 404, without a session id 400", async () => {
    const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" }
    expect((await post(listTools, { "mcp-session-id": "00000000-0000-0000-0000-000000000000" })).status).toBe(404)
    expect((await post(listTools)).status).toBe(400)
  })

  it("exposes the read-only tools by default, each annotated", async () => {
    const { client } = await connect()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(["inbox_list", "memory_read", "schedule_list", "threads_search"])
    for (const listed of tools) expect(listed.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    const refused = await client.callTool({ name: "notify", arguments: { subject: "x", body: "y" } }).catch((e) => e)
    expect(String(refused)).toContain("Tool notify not found")
  })

  describe("with every tool exposed", () => {
    beforeAll(async () => {
      expect((await configure({ tools: allTools })).status).toBe(200)
    })

    it("lists every tool, the writing ones not read-only and the destructive ones marked", async () => {
      const { client } = await connect()
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual([...allTools].sort())
      const byName = new Map(tools.map((t) => [t.name, t]))
      expect(byName.get("memory_update")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
      expect(byName.get("schedule_delete")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
      expect(byName.get("notify")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
      expect(byName.get("schedule_create")?.inputSchema).toMatchObject({ type: "object" })
    })

    it("reads and replaces working memory, with the HTTP route's validation", async () => {
      const { client } = await connect()
      const updated = await call(client, "memory_update", { content: "# Owner\nLikes tea." })
      expect(updated.structuredContent).toEqual({ content: "# Owner\nLikes tea." })
      const read = await call(client, "memory_read")
      expect(read.structuredContent).toMatchObject({ workingMemory: "# Owner\nLikes tea." })
      const http = await request(`${server.url}/api/memory/working`, { token: server.token })
      expect(http.body.content).toBe("# Owner\nLikes tea.")
      const invalid = await call(client, "memory_update", { content: 42 })
      expect(invalid.isError).toBe(true)
      expect(invalid.content[0]?.text).toContain("invalid arguments")
      const excess = await call(client, "memory_update", { content: "x", extra: true })
      expect(excess.isError).toBe(true)
    })

    it("notifies, lists the inbox and marks a message read", async () => {
      const { client } = await connect()
      const sent = await call(client, "notify", { subject: "Build done", body: "All green." })
      expect(sent.isError).toBeUndefined()
      const id = sent.structuredContent.id as string
      const listed = await call(client, "inbox_list")
      expect(listed.structuredContent.messages).toContainEqual(
        expect.objectContaining({ id, subject: "Build done", read: false }),
      )
      const marked = await call(client, "inbox_mark_read", { id })
      expect(marked.structuredContent).toMatchObject({ id, read: true })
      const missing = await call(client, "inbox_mark_read", { id: "nope" })
      expect(missing).toMatchObject({ isError: true, content: [{ type: "text", text: "Message not found" }] })
      const blank = await call(client, "notify", { subject: " ", body: "x" })
      expect(blank.isError).toBe(true)
      const unknown = await call(client, "notify", { subject: "s", body: "b", destination: "Nowhere" })
      expect(unknown.content[0]?.text).toBe('unknown destination "Nowhere"')
    })

    it("creates, lists and deletes scheduled tasks; their prompts are MCP prompts", async () => {
      const { client } = await connect()
      const created = await call(client, "schedule_create", {
        name: "Morning brief",
        prompt: "Summarise my inbox",
        cron: "0 8 * * *",
      })
      expect(created.isError).toBeUndefined()
      const id = created.structuredContent.id as string
      const listed = await call(client, "schedule_list")
      expect(listed.structuredContent.tasks).toContainEqual(expect.objectContaining({ id, name: "Morning brief" }))
      const { prompts } = await client.listPrompts()
      expect(prompts).toContainEqual(expect.objectContaining({ name: `task-${id}`, title: "Morning brief" }))
      const prompt = await client.getPrompt({ name: `task-${id}` })
      expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Summarise my inbox" } }])
      const invalid = await call(client, "schedule_create", { name: "x", prompt: "y" })
      expect(invalid.isError).toBe(true)
      expect(await call(client, "schedule_delete", { id })).toMatchObject({ structuredContent: { deleted: id } })
      expect(await call(client, "schedule_delete", { id })).toMatchObject({
        isError: true,
        content: [{ text: "Task not found" }],
      })
    })

    it("asks Aide, with progress notifications while the answer streams, then finds the thread", async () => {
      const { client } = await connect()
      server.model.script({ text: ["Tea ", "is ", "lovely."] })
      const progress: Array<Progress> = []
      const result = (await client.callTool({ name: "ask", arguments: { message: "What about tea?" } }, undefined, {
        onprogress: (update) => progress.push(update),
      })) as any
      expect(result.structuredContent).toMatchObject({ status: "done", text: "Tea is lovely." })
      expect(progress.map((update) => update.progress)).toEqual([4, 7, 14])
      const threadId = result.structuredContent.threadId as string
      const found = await call(client, "threads_search", { query: "tea" })
      expect(found.structuredContent.threads.map((t: { id: string }) => t.id)).toContain(threadId)
      const resource = await client.readResource({ uri: `aide://threads/${threadId}` })
      expect(textOf(resource.contents)).toContain("Tea is lovely.")
      const busy = await call(client, "ask", { message: "x", threadId: "bad id!" })
      expect(busy.isError).toBe(true)
    })

    it("a tool call needing approval becomes an elicitation when the client supports it", async () => {
      const { client } = await connect({ elicitation: true })
      const asked: Array<string> = []
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message)
        return { action: "accept", content: { approved: true } }
      })
      server.model.script(
        { toolCalls: [{ id: "call_1", name: "probe_delete_file", arguments: { path: "/tmp/a" } }] },
        { text: "Deleted it." },
      )
      const result = await call(client, "ask", { message: "Delete /tmp/a" })
      expect(result.structuredContent).toMatchObject({ status: "done", text: "Deleted it." })
      expect(asked).toHaveLength(1)
      expect(asked[0]).toContain("probe_delete_file")
      expect(tool.executions).toEqual([{ path: "/tmp/a" }])
    })

    it("without elicitation, the call waits with its run id, and `approve` decides it", async () => {
      const { client } = await connect()
      server.model.script(
        { toolCalls: [{ id: "call_2", name: "probe_delete_file", arguments: { path: "/tmp/b" } }] },
        { text: "Left it alone." },
      )
      const waiting = await call(client, "ask", { message: "Delete /tmp/b" })
      expect(waiting.structuredContent).toMatchObject({
        status: "waiting_for_approval",
        pendingApprovals: [{ toolCallId: "call_2", toolName: "probe_delete_file", input: { path: "/tmp/b" } }],
      })
      const { runId, threadId } = waiting.structuredContent
      const decided = await call(client, "approve", { runId, threadId, approved: false })
      expect(decided.structuredContent).toMatchObject({ status: "done", text: "Left it alone." })
      expect(tool.executions).toEqual([])
      const again = await call(client, "approve", { runId, threadId, approved: true })
      expect(again.isError).toBe(true)
    })

    it("lists and reads resources; a subscription is told when the resource changes", async () => {
      const { client } = await connect()
      const { resources } = await client.listResources()
      expect(resources.map((r) => r.uri)).toEqual(
        expect.arrayContaining(["aide://memory/working", "aide://memory/observations", "aide://inbox"]),
      )
      const { resourceTemplates } = await client.listResourceTemplates()
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["aide://threads/{id}"])
      const updated: Array<string> = []
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updated.push(notification.params.uri)
      })
      await client.subscribeResource({ uri: "aide://memory/working" })
      // Changed through the HTTP API, not through MCP: the subscription sees any change.
      await request(`${server.url}/api/memory/working`, {
        method: "PUT",
        token: server.token,
        body: { content: "Changed elsewhere." },
      })
      await eventually(() => (updated.includes("aide://memory/working") ? true : undefined), { timeoutMs: 10_000 })
      const read = await client.readResource({ uri: "aide://memory/working" })
      expect(textOf(read.contents)).toBe("Changed elsewhere.")
      await expect(client.readResource({ uri: "aide://nothing" })).rejects.toThrow(/Resource not found/)
    })

    it("the listening stream (GET /mcp) answers its head at once, not at the first event", async () => {
      const opened = await post(initialize("2025-11-25"))
      const sessionId = opened.headers.get("mcp-session-id")!
      await opened.text()
      const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
      expect((await post(initialized, { "mcp-session-id": sessionId })).status).toBe(202)
      const controller = new AbortController()
      const started = Date.now()
      const listening = await fetch(`${server.url}/mcp`, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${server.token}`,
          "mcp-session-id": sessionId,
        },
        signal: controller.signal,
      })
      expect(listening.status).toBe(200)
      expect(listening.headers.get("content-type")).toBe("text/event-stream")
      expect(Date.now() - started).toBeLessThan(2_000)
      controller.abort()
    })

    it("a session survives its connection dropping: a new connection continues it", async () => {
      const first = await connect()
      const sessionId = first.transport.sessionId!
      await first.client.close()
      const second = await connect({ sessionId })
      expect(second.transport.sessionId).toBe(sessionId)
      expect((await second.client.listTools()).tools).toHaveLength(allTools.length)
    })

    it("a session belongs to its owner session: another token cannot use it, a revoked one is refused", async () => {
      const { transport } = await connect()
      const sessionId = transport.sessionId!
      const login = await request(`${server.url}/api/auth/login`, {
        body: { password: "correct horse battery staple" },
      })
      const other = login.body.token as string
      const listTools = { jsonrpc: "2.0", id: 3, method: "tools/list" }
      const foreign = await post(listTools, { authorization: `Bearer ${other}`, "mcp-session-id": sessionId })
      expect(foreign.status).toBe(404)
      const { client } = await connect({ token: other })
      expect((await client.listTools()).tools.length).toBeGreaterThan(0)
      expect((await request(`${server.url}/api/auth/logout`, { method: "POST", token: other })).status).toBe(200)
      const revoked = await post(listTools, { authorization: `Bearer ${other}` })
      expect(revoked.status).toBe(401)
      await expect(client.listTools()).rejects.toThrow()
    })
  })
})

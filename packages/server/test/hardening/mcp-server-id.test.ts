import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "../support/server.js"

/**
 * Issue 20, finding 17: the reference's own client adds an MCP server with `POST /api/mcp-servers`
 * and no id; the server makes one and answers `201 { id, ...config }`.
 */
describe("POST /api/mcp-servers without an id", () => {
  let server: TestServer
  let token: string
  const api = (path: string, init: { readonly method?: string; readonly body?: unknown } = {}) =>
    request(`${server.url}${path}`, { token, ...init })

  beforeAll(async () => {
    server = await startServer()
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it("makes a UUID id and answers 201 { id, ...config } as the reference does", async () => {
    const body = {
      name: "Remote",
      url: "https://mcp.example.com/mcp",
      enabled: false,
      headers: { Authorization: "Bearer s3cret" },
    }
    const created = await api("/api/mcp-servers", { method: "POST", body })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(created.body).toEqual({
      id,
      name: "Remote",
      url: "https://mcp.example.com/mcp",
      enabled: false,
      // A secret never comes back, as in GET /api/config.
      headers: { Authorization: "••••••" },
      type: "http",
      requireApproval: true,
      tools: [],
      error: null,
    })
    const config = await api("/api/config")
    expect(config.body.mcpServers[id]).toMatchObject({ url: "https://mcp.example.com/mcp", enabled: false })
    const listed = await api("/api/mcp-servers")
    expect(listed.body.servers.map((s: { id: string }) => s.id)).toContain(id)
  })

  it("makes a new id each time", async () => {
    const body = { url: "https://mcp.example.com/mcp", enabled: false }
    const first = await api("/api/mcp-servers", { method: "POST", body })
    const second = await api("/api/mcp-servers", { method: "POST", body })
    expect([first.status, second.status]).toEqual([201, 201])
    expect(first.body.id).not.toBe(second.body.id)
  })

  it("still reports config problems as 400, under a placeholder for the id", async () => {
    const response = await api("/api/mcp-servers", { method: "POST", body: { url: "ftp://x" } })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(/url: must be an http\(s\) URL/)
  })
})

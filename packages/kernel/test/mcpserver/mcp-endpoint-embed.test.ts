import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Auth from "../../src/auth/Auth.js"
import * as PasswordHasher from "../../src/auth/PasswordHasher.js"
import * as AppConfig from "../../src/config/AppConfig.js"
import * as Kernel from "../../src/Kernel.js"
import * as McpAuthorizer from "../../src/mcpserver/McpAuthorizer.js"
import * as McpEndpoint from "../../src/mcpserver/McpEndpoint.js"

// docs/embedding.md "8. Aide's MCP server in your app": the endpoint over a kernel, mounted as a
// fetch handler (here handed the client's requests directly: any HTTP app does the same).
const mcp = McpEndpoint.layer().pipe(
  Layer.provide(McpAuthorizer.layerOwner),
  Layer.provideMerge(Kernel.layerMemory({ passwordHasher: PasswordHasher.layerTest })),
)

describe("McpEndpoint in an embedder's app", () => {
  const runtime = ManagedRuntime.make(mcp)
  let handle: (request: Request) => Promise<Response>
  let token: string
  beforeAll(async () => {
    const endpoint = await runtime.runPromise(McpEndpoint.McpEndpoint)
    const challenge = 'Bearer resource_metadata="https://app.example/.well-known/oauth-protected-resource/mcp"'
    handle = (request) => endpoint.handle(request, { challenge })
    token = await runtime.runPromise(
      Effect.gen(function* () {
        const pair = yield* (yield* Auth.Auth).setup("correct horse battery staple", { userAgent: "t", ip: "::1" })
        yield* (yield* AppConfig.AppConfig).patch({ mcpServer: { enabled: true } })
        return pair.token
      }),
    )
  })
  afterAll(() => runtime.dispose())

  it("serves an MCP client through a fetch handler, and 401s with the embedder's challenge", async () => {
    const refused = await handle(new Request("https://app.example/mcp", { method: "POST", body: "{}" }))
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toContain("app.example")
    const client = new Client({ name: "embedded", version: "1" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL("https://app.example/mcp"), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => handle(new Request(url, init)),
      }),
    )
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "inbox_list",
      "memory_read",
      "schedule_list",
      "threads_search",
    ])
    const read = await client.callTool({ name: "memory_read", arguments: {} })
    expect(read.structuredContent).toEqual({ workingMemory: null, observations: null })
    await client.close()
  })
})

import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  type AuthorizationServer,
  approveInBrowser,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startMcpHttpFixture,
  startProtectedMcpServer,
} from "@aide/testing/fixtures"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AppConfig from "../src/config/AppConfig.js"
import * as McpOAuth from "../src/mcp/McpOAuth.js"
import * as McpRegistry from "../src/mcp/McpRegistry.js"
import * as SqlMcpOAuthStore from "../src/mcp/SqlMcpOAuthStore.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import { redactText, redactUrl } from "../src/net/UrlRedaction.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import { tempSqliteStorageLayer } from "./support/files.js"

interface Harness {
  readonly registry: McpRegistry.McpRegistry["Type"]
  readonly config: AppConfig.AppConfig["Type"]
  readonly oauth: McpOAuth.McpOAuth["Type"]
  /** Every log line the registry wrote, as text with its annotations. */
  readonly logs: Array<string>
  readonly close: () => Promise<void>
}

/** The registry with real OAuth on SQLite, its logs captured. */
const start = async (): Promise<Harness> => {
  const logs: Array<string> = []
  const captured = Logger.make(({ logLevel, message, annotations }) => {
    logs.push(`${logLevel.label} ${JSON.stringify(message)} ${JSON.stringify(Object.fromEntries(annotations))}`)
  })
  const scope = Effect.runSync(Scope.make())
  const layer = McpRegistry.layer().pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        AppConfig.layerMemory.pipe(Layer.provide(ModelRegistry.layer({ env: {} }))),
        ToolRegistry.layer,
        McpOAuth.layer({ redirectUrl: "https://aide.example.test/api/mcp-servers/oauth/callback" }).pipe(
          Layer.provide(SqlMcpOAuthStore.layer),
          Layer.provide(tempSqliteStorageLayer),
        ),
      ),
    ),
  )
  const services = await Effect.runPromise(
    Layer.buildWithScope(layer, scope).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, captured)),
      Logger.withMinimumLogLevel(LogLevel.All),
    ),
  )
  return {
    registry: Context.get(services, McpRegistry.McpRegistry),
    config: Context.get(services, AppConfig.AppConfig),
    oauth: Context.get(services, McpOAuth.McpOAuth),
    logs,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const server = async (h: Harness, id: string) => (await run(h.registry.list)).find((s) => s.id === id)
const eventually = async <A>(check: () => Promise<A | undefined>, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("MCP static headers", () => {
  let authServer: AuthorizationServer
  let mcp: ProtectedMcpServer
  beforeAll(async () => {
    authServer = await startAuthorizationServer()
    mcp = await startProtectedMcpServer({ authorizationServer: authServer })
  })
  afterAll(async () => {
    await mcp?.close()
    await authServer?.close()
  })

  it("go to the MCP server's origin only, never to its OAuth authorization server", async () => {
    const h = await start()
    try {
      await run(
        h.config.patch({ mcpServers: { remote: { url: mcp.url, oauth: true, headers: { "X-Static": "s3cret" } } } }),
      )
      const pending = await eventually(async () => (await server(h, "remote"))?.authUrl)
      const callback = await approveInBrowser(pending)
      await run(h.oauth.complete(callback.searchParams.get("state") ?? "", callback.searchParams.get("code") ?? ""))
      await run(h.registry.reconnect("remote"))
      await eventually(async () => ((await server(h, "remote"))?.tools.length ? true : undefined))

      // Discovery, registration (and the token exchange) reached the authorization server…
      expect(authServer.requests.map((r) => r.path)).toEqual(
        expect.arrayContaining(["/.well-known/oauth-authorization-server", "/register", "/token"]),
      )
      // …without the static header, which every request to the MCP server carried.
      expect(authServer.requests.filter((r) => r.headers["x-static"] !== undefined)).toEqual([])
      const mcpCalls = mcp.requests.filter((r) => r.path === "/mcp")
      expect(mcpCalls.length).toBeGreaterThan(0)
      for (const request of mcpCalls) expect(request.headers["x-static"]).toBe("s3cret")
    } finally {
      await h.close()
    }
  })
})

describe("MCP URL secrets", () => {
  it("redactUrl masks userinfo and query values", () => {
    expect(redactUrl("https://alice:pw@mcp.example.com/mcp?token=abc&team=x#frag")).toBe(
      "https://***@mcp.example.com/mcp?token=***&team=***",
    )
    expect(redactUrl("https://mcp.example.com/mcp")).toBe("https://mcp.example.com/mcp")
    expect(redactText("failed: http://u:p@h.test/x?k=secretvalue.", "http://u:p@h.test/x?k=secretvalue")).toBe(
      "failed: http://***@h.test/x?k=***.",
    )
    expect(redactText("server said secretvalue twice", "https://h.test/?k=secretvalue")).toBe("server said *** twice")
  })

  it("userinfo becomes Basic authorization, and neither it nor the query reaches the error or the logs", async () => {
    const remote = await startMcpHttpFixture("unauthorized")
    const h = await start()
    try {
      const url = new URL(remote.url)
      url.username = "alice"
      url.password = "pa55word"
      url.search = "?token=t0ps3cret"
      await run(h.config.patch({ mcpServers: { locked: { url: url.href } } }))
      const status = await eventually(async () => {
        const found = await server(h, "locked")
        return found?.error ? found : undefined
      })
      expect(status.error).toBe("HTTP 401: bad token")
      expect(remote.requests[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from("alice:pa55word").toString("base64")}`,
      )
      expect(remote.requests[0]?.path).toBe("/mcp")
      const logged = h.logs.join("\n")
      expect(logged).toContain("MCP server failed to connect")
      for (const secret of ["alice", "pa55word", "t0ps3cret"]) {
        expect(JSON.stringify(status)).not.toContain(secret)
        expect(logged).not.toContain(secret)
      }
    } finally {
      await h.close()
      await remote.close()
    }
  })

  it("an error text quoting the URL (here the server's answer) is redacted", async () => {
    const echoing = createServer((request, response) => {
      request.resume()
      response.writeHead(404, { "content-type": "text/plain" })
      response.end(`no MCP endpoint at http://${request.headers.host}${request.url}`)
    })
    await new Promise<void>((resolve) => echoing.listen(0, "127.0.0.1", resolve))
    const { port } = echoing.address() as AddressInfo
    const h = await start()
    try {
      await run(h.config.patch({ mcpServers: { echo: { url: `http://127.0.0.1:${port}/mcp?token=t0ps3cret` } } }))
      const status = await eventually(async () => {
        const found = await server(h, "echo")
        return found?.error ? found : undefined
      })
      expect(status.error).toBe(`HTTP 404: no MCP endpoint at http://127.0.0.1:${port}/mcp?token=***`)
      expect(h.logs.join("\n")).not.toContain("t0ps3cret")
    } finally {
      await h.close()
      echoing.closeAllConnections()
      await new Promise((resolve) => echoing.close(resolve))
    }
  })
})

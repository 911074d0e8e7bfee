import * as Net from "node:net"
import { ServerConfig } from "@aide/server"
import {
  type AuthorizationServer,
  approveInBrowser,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from "@aide/testing/fixtures"
import { ConfigProvider, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/chat.js"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

/** A port that was free a moment ago: the public URL must be known before the server starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

describe.each(storageKinds)("OAuth for MCP servers (%s)", (storage) => {
  let authServer: AuthorizationServer
  let mcp: ProtectedMcpServer
  let server: TestServer
  let token: string
  let publicUrl: string

  const api = (path: string, init: { readonly method?: string; readonly body?: unknown } = {}) =>
    request(`${server.url}${path}`, { token, ...init })
  const find = async (id: string) =>
    ((await api("/api/mcp-servers")).body.servers as Array<any>).find((entry) => entry.id === id)
  const pendingAuthUrl = (id: string, not?: string) =>
    eventually(async () => {
      const found = await find(id)
      return found?.authUrl !== undefined && found.authUrl !== not ? (found.authUrl as string) : undefined
    })

  beforeAll(async () => {
    authServer = await startAuthorizationServer()
    mcp = await startProtectedMcpServer({ authorizationServer: authServer })
    const port = await freePort()
    // The owner's browser reaches us at another name than the listening address (a proxy, say).
    publicUrl = `http://localhost:${port}`
    server = await startServer({ storage, port, publicUrl })
    token = (await setup(server)).token
  })
  afterAll(async () => {
    await server?.close()
    await mcp?.close()
    await authServer?.close()
  })

  it("a server with oauth: true is pending with an authUrl, then connected after the callback, without a restart", async () => {
    const patched = await api("/api/config", {
      method: "PATCH",
      body: { mcpServers: { remote: { url: mcp.url, oauth: true, name: "Remote" } } },
    })
    expect(patched.status).toBe(200)
    const authUrl = new URL(await pendingAuthUrl("remote"))
    expect(await find("remote")).toMatchObject({ id: "remote", type: "http", tools: [], error: null })
    expect(authUrl.origin).toBe(authServer.url)
    expect(authUrl.searchParams.get("redirect_uri")).toBe(`${publicUrl}/api/mcp-servers/oauth/callback`)
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authUrl.searchParams.get("resource")).toBe(mcp.url)

    const callback = await approveInBrowser(authUrl.href)
    expect(`${callback.origin}${callback.pathname}`).toBe(`${publicUrl}/api/mcp-servers/oauth/callback`)
    // Public: the browser has no bearer token.
    const page = await fetch(callback)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(await page.text()).toContain("Authorization complete, you can close this window")

    const connected = await eventually(async () => {
      const found = await find("remote")
      return found?.tools.length > 0 ? found : undefined
    })
    expect(connected).toEqual({
      id: "remote",
      name: "Remote",
      type: "http",
      enabled: true,
      requireApproval: true,
      tools: [{ id: "remote_echo", name: "echo", description: "Echoes the text back" }],
      error: null,
    })

    // The state was single-use.
    const reused = await request(callback.href)
    expect(reused.status).toBe(400)
    expect(reused.body).toEqual({ error: "Unknown or already used authorization state" })
  })

  it("Aide's own access token never reaches the MCP server", () => {
    expect(mcp.authorizations.length).toBeGreaterThan(0)
    for (const header of mcp.authorizations) expect(header).not.toContain(token)
  })

  it("answers 400 for a missing, unknown or incomplete callback", async () => {
    const callback = `${server.url}/api/mcp-servers/oauth/callback`
    expect(await request(callback)).toMatchObject({ status: 400, body: { error: "state is required" } })
    expect(await request(`${callback}?state=abc`)).toMatchObject({ status: 400, body: { error: "code is required" } })
    expect(await request(`${callback}?state=made-up&code=xyz`)).toMatchObject({
      status: 400,
      body: { error: "Unknown or already used authorization state" },
    })
  })

  it("a denied authorization uses up its state and the server gets a fresh authUrl", async () => {
    await api("/api/config", { method: "PATCH", body: { mcpServers: { second: { url: mcp.url, oauth: true } } } })
    const first = new URL(await pendingAuthUrl("second"))
    const state = first.searchParams.get("state") ?? ""
    const denied = await request(
      `${server.url}/api/mcp-servers/oauth/callback?state=${state}&error=access_denied&error_description=no`,
    )
    expect(denied).toMatchObject({ status: 400, body: { error: "Authorization denied: access_denied (no)" } })
    const fresh = new URL(await pendingAuthUrl("second", first.href))
    expect(fresh.searchParams.get("state")).not.toBe(state)
  })

  it("removing a server forgets its tokens: added again, it needs a new authorization", async () => {
    await api("/api/config", { method: "PATCH", body: { mcpServers: { remote: null } } })
    await eventually(async () => ((await find("remote")) === undefined ? true : undefined))
    await api("/api/config", { method: "PATCH", body: { mcpServers: { remote: { url: mcp.url, oauth: true } } } })
    expect(await pendingAuthUrl("remote")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/)
  })
})

describe("AIDE_PUBLIC_URL", () => {
  const read = (env: Record<string, string>) =>
    Effect.runPromise(
      Effect.withConfigProvider(ServerConfig.fromEnv, ConfigProvider.fromMap(new Map(Object.entries(env)))),
    )

  it("is read without its trailing slash, and unset by default", async () => {
    expect((await read({ AIDE_PUBLIC_URL: "https://aide.example.com/" })).publicUrl).toBe("https://aide.example.com")
    expect((await read({})).publicUrl).toBeUndefined()
  })
})

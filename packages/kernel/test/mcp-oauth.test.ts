import {
  type AuthorizationServer,
  approveInBrowser,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from "@aide/testing/fixtures"
import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it, layer, type Vitest } from "@effect/vitest"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Duration, Effect, type Layer, TestClock } from "effect"
import * as McpOAuth from "../src/mcp/McpOAuth.js"
import * as SqlMcpOAuthStore from "../src/mcp/SqlMcpOAuthStore.js"
import { tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

const publicUrl = "https://aide.example.test"
const redirectUrl = `${publicUrl}/api/mcp-servers/oauth/callback`

/** Hosts under `.public.test` "resolve" to a public address but are served on loopback. */
const publicLookup = async (hostname: string) => (hostname.endsWith(".public.test") ? ["93.184.216.34"] : ["127.0.0.1"])
const viaLoopback: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : input)
  if (url.hostname.endsWith(".public.test")) url.hostname = "127.0.0.1"
  return fetch(url, init)
}

interface Attempt {
  readonly client?: Client
  readonly error?: unknown
  readonly authUrl?: URL
}

/** Connects an MCP SDK client the way the registry does: our provider, our guarded fetch. */
const connect = (oauth: McpOAuth.McpOAuth["Type"], server: { id: string; url: string }) =>
  Effect.promise(async (): Promise<Attempt> => {
    let authUrl: URL | undefined
    const client = new Client({ name: "aide-test", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      authProvider: oauth.provider(server, (url) => {
        authUrl = url
      }),
      fetch: oauth.fetchFor(server.url),
    })
    try {
      await client.connect(transport)
      return { client }
    } catch (error) {
      await client.close().catch(() => {})
      return authUrl === undefined ? { error } : { error, authUrl }
    }
  })

const echo = (client: Client, text: string) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name: "echo", arguments: { text } })
    return (result.content as Array<{ text: string }>)[0]?.text
  })

const close = (client: Client | undefined) => Effect.promise(async () => client?.close())

/** The owner approves at `authUrl`; returns the `state` and `code` our callback receives. */
const approve = (authUrl: URL) =>
  Effect.promise(async () => {
    const callback = await approveInBrowser(authUrl.href)
    expect(callback.origin + callback.pathname).toBe(redirectUrl)
    return { state: callback.searchParams.get("state") ?? "", code: callback.searchParams.get("code") ?? "" }
  })

/** Pending → approved → connected; returns the connected client. */
const authorize = (oauth: McpOAuth.McpOAuth["Type"], server: { id: string; url: string }) =>
  Effect.gen(function* () {
    const pending = yield* connect(oauth, server)
    expect(pending.error).toBeInstanceOf(UnauthorizedError)
    const { state, code } = yield* approve(pending.authUrl!)
    expect(yield* oauth.complete(state, code)).toBe(server.id)
    const connected = yield* connect(oauth, server)
    expect(connected.error).toBeUndefined()
    return connected.client!
  })

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

const reset = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM mcp_oauth_clients`
  yield* sql`DELETE FROM mcp_oauth_states`
})

const newOAuth = (options: Partial<McpOAuth.McpOAuthOptions> = {}) =>
  Effect.zipRight(reset, McpOAuth.make({ redirectUrl, ...options }).pipe(Effect.provide(SqlMcpOAuthStore.layer)))

const suite = (it: Vitest.MethodsNonLive<SqlClient.SqlClient>) => {
  describe("authorization", () => {
    it.effect("pending with an authUrl, then connected after the callback, without a new provider", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        const server = { id: "remote", url: mcp.url }
        const pending = yield* connect(oauth, server)
        expect(pending.error).toBeInstanceOf(UnauthorizedError)
        const authUrl = pending.authUrl!
        expect(authUrl.origin).toBe(authServer.url)
        expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256")
        expect(authUrl.searchParams.get("resource")).toBe(mcp.url)
        expect(authUrl.searchParams.get("redirect_uri")).toBe(`${publicUrl}/api/mcp-servers/oauth/callback`)
        expect(authUrl.searchParams.get("state")?.length).toBeGreaterThanOrEqual(40)
        // Dynamic client registration happened with our callback.
        expect(authServer.registrations.at(-1)?.redirect_uris).toEqual([redirectUrl])

        const { state, code } = yield* approve(authUrl)
        expect(yield* oauth.complete(state, code)).toBe("remote")
        const tokenRequest = authServer.tokenRequests.at(-1)!
        expect(tokenRequest.get("grant_type")).toBe("authorization_code")
        expect(tokenRequest.get("resource")).toBe(mcp.url)

        const connected = yield* connect(oauth, server)
        expect(connected.error).toBeUndefined()
        expect(yield* echo(connected.client!, "hello")).toBe("hello")
        yield* close(connected.client)
      }),
    )

    it.effect("a state works once; unknown states are refused", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        const pending = yield* connect(oauth, { id: "remote", url: mcp.url })
        const { state, code } = yield* approve(pending.authUrl!)
        yield* oauth.complete(state, code)
        const reused = yield* Effect.flip(oauth.complete(state, code))
        expect(reused).toMatchObject({ _tag: "McpOAuthError", message: "Unknown or already used authorization state" })
        const unknown = yield* Effect.flip(oauth.complete("made-up", code))
        expect(unknown.message).toBe("Unknown or already used authorization state")
      }),
    )

    it.effect("a state expires after 30 minutes", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        const pending = yield* connect(oauth, { id: "remote", url: mcp.url })
        const { state, code } = yield* approve(pending.authUrl!)
        yield* TestClock.adjust(Duration.minutes(31))
        const expired = yield* Effect.flip(oauth.complete(state, code))
        expect(expired.message).toBe("Authorization expired; start it again")
      }),
    )

    it.effect("a wrong code fails the callback with the authorization server's reason", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        const pending = yield* connect(oauth, { id: "remote", url: mcp.url })
        const { state } = yield* approve(pending.authUrl!)
        const failed = yield* Effect.flip(oauth.complete(state, "not-the-code"))
        expect(failed.message).toMatch(/^Authorization failed: .*unknown code/)
      }),
    )

    it.effect("tokens are stored in the database: a new instance connects without authorizing", () =>
      Effect.gen(function* () {
        const first = yield* newOAuth()
        const client = yield* authorize(first, { id: "remote", url: mcp.url })
        yield* close(client)
        const registrations = authServer.registrations.length
        // A restart: nothing but the database is shared.
        const second = yield* McpOAuth.make({ redirectUrl }).pipe(Effect.provide(SqlMcpOAuthStore.layer))
        const again = yield* connect(second, { id: "remote", url: mcp.url })
        expect(again.error).toBeUndefined()
        expect(yield* echo(again.client!, "still here")).toBe("still here")
        expect(authServer.registrations.length).toBe(registrations)
        yield* close(again.client)
      }),
    )

    it.effect("tokens belong to the server URL they were obtained for", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        yield* close(yield* authorize(oauth, { id: "remote", url: mcp.url }))
        const moved = yield* connect(oauth, { id: "remote", url: `${mcp.url}?moved=1` })
        expect(moved.error).toBeInstanceOf(UnauthorizedError)
      }),
    )

    it.effect("forget drops tokens and pending states", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        yield* close(yield* authorize(oauth, { id: "remote", url: mcp.url }))
        const pending = yield* connect(oauth, { id: "other", url: mcp.url })
        const { state, code } = yield* approve(pending.authUrl!)
        yield* oauth.forget("remote")
        yield* oauth.forget("other")
        expect((yield* connect(oauth, { id: "remote", url: mcp.url })).error).toBeInstanceOf(UnauthorizedError)
        expect((yield* Effect.flip(oauth.complete(state, code))).message).toBe(
          "Unknown or already used authorization state",
        )
      }),
    )
  })

  describe("refresh", () => {
    it.effect("an expired access token is refreshed and the new tokens are stored", () =>
      Effect.gen(function* () {
        const oauth = yield* newOAuth()
        const server = { id: "remote", url: mcp.url }
        const client = yield* authorize(oauth, server)
        yield* close(client)
        const sql = yield* SqlClient.SqlClient
        const before = (yield* sql<{ tokens: string }>`SELECT tokens FROM mcp_oauth_clients`)[0]!.tokens
        authServer.expireAccessTokens()
        const refreshes = authServer.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").length
        const again = yield* connect(oauth, server)
        expect(again.error).toBeUndefined()
        expect(yield* echo(again.client!, "refreshed")).toBe("refreshed")
        yield* close(again.client)
        const refreshRequests = authServer.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token")
        expect(refreshRequests.length).toBe(refreshes + 1)
        expect(refreshRequests.at(-1)?.get("resource")).toBe(mcp.url)
        const after = (yield* sql<{ tokens: string }>`SELECT tokens FROM mcp_oauth_clients`)[0]!.tokens
        expect(JSON.parse(after).access_token).not.toBe(JSON.parse(before).access_token)
        expect(JSON.parse(after).refresh_token).not.toBe(JSON.parse(before).refresh_token)
      }),
    )
  })

  describe("refusals", () => {
    it.effect("an authorization server without PKCE S256 is refused before registration", () =>
      Effect.gen(function* () {
        const plainOnly = yield* Effect.promise(() => startAuthorizationServer({ s256: false }))
        const protectedByPlain = yield* Effect.promise(() =>
          startProtectedMcpServer({ authorizationServer: plainOnly }),
        )
        const oauth = yield* newOAuth()
        const attempt = yield* connect(oauth, { id: "plain", url: protectedByPlain.url })
        expect(attempt.authUrl).toBeUndefined()
        expect(String(attempt.error)).toContain("does not support PKCE with S256")
        expect(plainOnly.registrations).toEqual([])
        expect(plainOnly.authorizeRequests).toEqual([])
        yield* Effect.promise(() => protectedByPlain.close())
        yield* Effect.promise(() => plainOnly.close())
      }),
    )

    it.effect("metadata sending a public server's client to a loopback address is refused", () =>
      Effect.gen(function* () {
        const port = new URL(authServer.url).port
        // The server is "public" (mcp.public.test); its metadata names our loopback authorization server.
        const publicMcp = yield* Effect.promise(() =>
          startProtectedMcpServer({ authorizationServer: authServer, publicHost: "mcp.public.test" }),
        )
        const serverUrl = publicMcp.url
        const oauth = yield* newOAuth({ guard: { lookup: publicLookup, fetch: viaLoopback } })
        const registrations = authServer.registrations.length
        const attempt = yield* connect(oauth, { id: "public", url: serverUrl })
        expect(attempt.authUrl).toBeUndefined()
        expect(String(attempt.error)).toContain(`Refused http://127.0.0.1:${port}/`)
        expect(String(attempt.error)).toContain("loopback address")
        expect(authServer.registrations.length).toBe(registrations)
        yield* Effect.promise(() => publicMcp.close())
      }),
    )
  })
}

const storage = (layerOf: Layer.Layer<SqlClient.SqlClient, unknown>) => layerOf

describe("McpOAuth.layerDisabled", () => {
  it.effect("servers with oauth: true fail with a clear message; callbacks are refused", () =>
    Effect.gen(function* () {
      const oauth = yield* McpOAuth.McpOAuth
      const attempt = yield* connect(oauth, { id: "remote", url: mcp.url })
      expect(attempt.authUrl).toBeUndefined()
      expect(String(attempt.error)).toContain(McpOAuth.defaultDisabledMessage)
      expect((yield* Effect.flip(oauth.complete("state", "code"))).message).toBe(McpOAuth.defaultDisabledMessage)
    }).pipe(Effect.provide(McpOAuth.layerDisabled())),
  )
})

describe("McpOAuth", () => {
  layer(storage(tempSqliteStorageLayer), { timeout: 30_000 })("SQLite", suite)

  describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
    layer(storage(freshStorageLayer), { timeout: 60_000 })(suite)
  })
})

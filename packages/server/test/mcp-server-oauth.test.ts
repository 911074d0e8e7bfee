import * as Crypto from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { McpAuthorizer } from "@aide/kernel"
import { Server } from "@aide/server"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "./support/server.js"

/** A port that was free a moment ago: the public URL (the issuer) must be known before the server starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

const redirectUri = "http://127.0.0.1:49152/callback"
const verifierOf = () => Crypto.randomBytes(32).toString("base64url")
const challengeOf = (verifier: string) => Crypto.createHash("sha256").update(verifier).digest("base64url")

describe("/mcp's OAuth authorization server", () => {
  let server: TestServer
  let origin: string
  let owner: string
  let resource: string
  let sharedClient: string | undefined
  let dataDir: string

  /** Runs `McpAuthorizer.authorize` as `/mcp` would, with the server's own authorizer and kernel. */
  const authorize = (bearer: string, options: Partial<Server.ServerOptions> = {}, target = server) =>
    target.run(
      Effect.flatMap(McpAuthorizer.McpAuthorizer, (authorizer) => authorizer.authorize(bearer)).pipe(
        Effect.either,
        Effect.provide(Server.mcpAuthorizerLayer({ ...serverOptions(), ...options } as Server.ServerOptions)),
      ) as Effect.Effect<any, never, never>,
    )
  const serverOptions = () => ({ host: "127.0.0.1", port: Number(new URL(origin).port), publicUrl: origin })

  const register = (body: unknown) =>
    fetch(`${origin}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })
  const form = (path: string, params: Record<string, string>) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params).toString(),
    })
  const authorizeQuery = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st-1",
      resource,
      scope: "memory_read inbox_list memory_update",
      ...extra,
    }).toString()
  /** `GET /oauth/authorize` without following: its status and Location. */
  const authorizeRequest = async (query: string) => {
    const response = await fetch(`${origin}/oauth/authorize?${query}`, { redirect: "manual" })
    return { status: response.status, location: response.headers.get("location"), body: await response.text() }
  }
  /** The owner approves in the console (its API), as the consent screen does. */
  const consent = async (query: string, tools: ReadonlyArray<string>, approve = true) => {
    const response = await request(`${server.url}/api/mcp/consent`, {
      token: owner,
      body: { request: query, approve, tools },
    })
    expect(response.status).toBe(200)
    return new URL(response.body.redirectTo as string)
  }
  const newClient = async () => {
    const response = await register({ client_name: "Test editor", redirect_uris: [redirectUri] })
    expect(response.status).toBe(201)
    return (await response.json()).client_id as string
  }
  /** Registration, consent and the code exchange: a token pair. */
  const grant = async (tools: ReadonlyArray<string> = ["memory_read"]) => {
    // One client for all (registration is rate-limited per address); a grant per consent.
    sharedClient ??= await newClient()
    const clientId = sharedClient
    const verifier = verifierOf()
    const code = (await consent(authorizeQuery(clientId, challengeOf(verifier)), tools)).searchParams.get("code")!
    const response = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: redirectUri,
      resource,
    })
    expect(response.status).toBe(200)
    return { clientId, code, verifier, tokens: (await response.json()) as any }
  }

  beforeAll(async () => {
    origin = `http://127.0.0.1:${await freePort()}`
    resource = `${origin}/mcp`
    // Our own data directory: the restart test starts a second server on it.
    dataDir = mkdtempSync(join(tmpdir(), "aide-mcp-oauth-"))
    server = await startServer({ dataDir, port: Number(new URL(origin).port), publicUrl: origin })
    owner = (await setup(server)).token
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("publishes RFC 9728 and RFC 8414 metadata naming the public origin, S256 only", async () => {
    const prm = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(prm).toMatchObject({ resource, authorization_servers: [origin] })
    expect(prm.scopes_supported).toContain("memory_read")
    const as = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()
    expect(as).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
    })
  })

  it("registers public clients only, with https or loopback http redirect URIs", async () => {
    for (const bad of [
      { redirect_uris: ["http://evil.example/cb"] },
      { redirect_uris: ["https://ok.example/cb#frag"] },
      { redirect_uris: [] },
      { redirect_uris: Array.from({ length: 6 }, (_, i) => `https://ok.example/${i}`) },
      { redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_basic" },
      { redirect_uris: [redirectUri], client_name: "x".repeat(101) },
    ]) {
      const response = await register(bad)
      expect(response.status, JSON.stringify(bad)).toBe(400)
      expect((await response.json()).error).toMatch(/^invalid_(redirect_uri|client_metadata)$/)
    }
    const ok = await register({ client_name: "Editor", redirect_uris: ["https://ok.example/cb", redirectUri] })
    expect(ok.status).toBe(201)
    expect(await ok.json()).toMatchObject({
      token_endpoint_auth_method: "none",
      redirect_uris: ["https://ok.example/cb", redirectUri],
    })
  })

  it("sends a valid request to the console's consent screen; the owner's approval issues a code with the state", async () => {
    const clientId = await newClient()
    const query = authorizeQuery(clientId, challengeOf(verifierOf()))
    const answer = await authorizeRequest(query)
    expect(answer.status).toBe(302)
    expect(answer.location).toBe(`/app/mcp/consent?${query}`)
    const details = await request(`${server.url}/api/mcp/consent/inspect`, { token: owner, body: { request: query } })
    expect(details.body).toEqual({
      clientId,
      clientName: "Test editor",
      redirectUri,
      tools: [
        { name: "memory_read", writes: false },
        { name: "inbox_list", writes: false },
        { name: "memory_update", writes: true },
      ],
    })
    const denied = await consent(query, [], false)
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({
      error: "access_denied",
      state: "st-1",
      iss: origin,
    })
    const approved = await consent(query, ["memory_read", "notify"])
    expect(approved.origin + approved.pathname).toBe(redirectUri)
    expect(approved.searchParams.get("state")).toBe("st-1")
    expect(approved.searchParams.get("code")).toMatch(/^aide_mcp_code_/)
    // The consent API needs the owner: an OAuth client cannot approve itself.
    expect(
      (await request(`${server.url}/api/mcp/consent`, { body: { request: query, approve: true, tools: [] } })).status,
    ).toBe(401)
  })

  it("refuses a PKCE downgrade: no challenge, plain, or a missing verifier", async () => {
    const clientId = await newClient()
    for (const extra of [{ code_challenge_method: "plain" }, { code_challenge: "" }, { code_challenge_method: "" }]) {
      const answer = await authorizeRequest(authorizeQuery(clientId, challengeOf(verifierOf()), extra))
      expect(answer.status).toBe(302)
      const back = new URL(answer.location!)
      expect(back.origin + back.pathname).toBe(redirectUri)
      expect(back.searchParams.get("error")).toBe("invalid_request")
      expect(back.searchParams.get("state")).toBe("st-1")
    }
    const verifier = verifierOf()
    const code = (await consent(authorizeQuery(clientId, challengeOf(verifier)), ["memory_read"])).searchParams.get(
      "code",
    )!
    for (const wrong of [{}, { code_verifier: verifierOf() }]) {
      const response = await form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        client_id: clientId,
        redirect_uri: redirectUri,
        ...wrong,
      })
      expect(response.status).toBe(400)
      expect((await response.json()).error).toBe("invalid_grant")
    }
  })

  it("refuses a redirect URI that is not exactly a registered one, without redirecting to it", async () => {
    const clientId = await newClient()
    for (const other of [
      "http://127.0.0.1:49152/callback/",
      "http://127.0.0.1:49153/callback",
      "https://evil.example/cb",
    ]) {
      const answer = await authorizeRequest(
        authorizeQuery(clientId, challengeOf(verifierOf()), { redirect_uri: other }),
      )
      expect(answer.status).toBe(400)
      expect(answer.location).toBeNull()
    }
    const unknown = await authorizeRequest(authorizeQuery("no-such-client", challengeOf(verifierOf())))
    expect(unknown.status).toBe(400)
    // At the token endpoint: the code's redirect URI must be repeated exactly.
    const verifier = verifierOf()
    const code = (await consent(authorizeQuery(clientId, challengeOf(verifier)), [])).searchParams.get("code")!
    const response = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:49152/other",
    })
    expect((await response.json()).error).toBe("invalid_grant")
  })

  it("refuses a replayed code and revokes the tokens issued from it", async () => {
    const first = await grant()
    expect((await authorize(first.tokens.access_token))._tag).toBe("Right")
    const replay = await form("/oauth/token", {
      grant_type: "authorization_code",
      code: first.code,
      code_verifier: first.verifier,
      client_id: first.clientId,
      redirect_uri: redirectUri,
    })
    expect(replay.status).toBe(400)
    expect((await replay.json()).error).toBe("invalid_grant")
    expect((await authorize(first.tokens.access_token))._tag).toBe("Left")
    const refreshed = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: first.tokens.refresh_token,
    })
    expect(refreshed.status).toBe(400)
  })

  it("binds tokens to /mcp: another resource is refused at authorize, token and on use", async () => {
    const clientId = await newClient()
    const answer = await authorizeRequest(
      authorizeQuery(clientId, challengeOf(verifierOf()), { resource: "https://other.example/mcp" }),
    )
    expect(new URL(answer.location!).searchParams.get("error")).toBe("invalid_target")
    const verifier = verifierOf()
    const code = (await consent(authorizeQuery(clientId, challengeOf(verifier)), [])).searchParams.get("code")!
    const response = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: redirectUri,
      resource: "https://other.example/mcp",
    })
    expect((await response.json()).error).toBe("invalid_target")
    // A token issued for this `/mcp` opens no other one (the same server under another public URL).
    const { tokens } = await grant()
    expect((await authorize(tokens.access_token))._tag).toBe("Right")
    expect((await authorize(tokens.access_token, { publicUrl: "https://aide.example" }))._tag).toBe("Left")
  })

  it("gives the client the consented tools; owner tokens keep opening /mcp; OAuth tokens never open /api", async () => {
    const { clientId, tokens } = await grant(["memory_read", "memory_update"])
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "memory_read memory_update" })
    expect(tokens.access_token).toMatch(/^aide_mcp_at_/)
    expect(tokens.expires_in).toBeLessThanOrEqual(600)
    const principal = await authorize(tokens.access_token)
    expect(principal.right).toMatchObject({
      kind: "client",
      clientId,
      clientName: "Test editor",
      tools: ["memory_read", "memory_update"],
    })
    expect(McpAuthorizer.allowedTools(principal.right, ["memory_read", "inbox_list"])).toEqual(["memory_read"])
    expect((await authorize(owner)).right).toMatchObject({ kind: "owner" })
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      expect((await request(`${server.url}/api/threads`, { token })).status).toBe(401)
      expect((await request(`${server.url}/api/mcp/clients`, { token })).status).toBe(401)
    }
    expect(
      (await request(`${server.url}/api/auth/refresh`, { body: { refreshToken: tokens.refresh_token } })).status,
    ).toBe(401)
  })

  it("lists grants for the owner; revoking one (API or RFC 7009) fails its next call", async () => {
    const { tokens } = await grant()
    const listed = await request(`${server.url}/api/mcp/clients`, { token: owner })
    const mine = (listed.body.clients as Array<any>).find(
      (client) => client.tools.length === 1 && client.clientName === "Test editor",
    )
    expect(mine).toMatchObject({ redirectUris: [redirectUri], tools: ["memory_read"] })
    expect(JSON.stringify(listed.body)).not.toContain(tokens.access_token)
    const ids = (listed.body.clients as Array<any>).map((client) => client.id)
    const revokedId = ids[0]
    expect((await authorize(tokens.access_token))._tag).toBe("Right")
    // Revoke them all through the API; the first token of this test is among them.
    for (const id of ids) {
      expect((await request(`${server.url}/api/mcp/clients/${id}`, { method: "DELETE", token: owner })).status).toBe(
        200,
      )
    }
    expect((await authorize(tokens.access_token))._tag).toBe("Left")
    expect(
      (await request(`${server.url}/api/mcp/clients/${revokedId}`, { method: "DELETE", token: owner })).status,
    ).toBe(404)
    expect((await request(`${server.url}/api/mcp/clients`, { token: owner })).body.clients).toEqual([])
    const other = await grant()
    expect((await form("/oauth/revoke", { token: other.tokens.refresh_token })).status).toBe(200)
    expect((await authorize(other.tokens.access_token))._tag).toBe("Left")
  })

  it("rotates refresh tokens; a reused one revokes the grant", async () => {
    const { clientId, tokens } = await grant()
    const rotated = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource,
    })
    expect(rotated.status).toBe(200)
    const next = await rotated.json()
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    expect((await authorize(next.access_token))._tag).toBe("Right")
    const reused = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })
    expect(reused.status).toBe(400)
    expect((await reused.json()).error).toBe("invalid_grant")
    expect((await authorize(next.access_token))._tag).toBe("Left")
    const after = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: next.refresh_token })
    expect(after.status).toBe(400)
  })

  it("answers malformed token requests with OAuth errors, never 500", async () => {
    const json = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    })
    expect(json.status).toBe(400)
    const cases: Array<[Record<string, string>, string]> = [
      [{ grant_type: "password" }, "unsupported_grant_type"],
      [{ grant_type: "authorization_code" }, "invalid_request"],
      [{ grant_type: "refresh_token", refresh_token: "x".repeat(5000) }, "invalid_request"],
    ]
    for (const [params, error] of cases) {
      const response = await form("/oauth/token", params)
      expect(response.status).toBe(400)
      expect((await response.json()).error).toBe(error)
    }
    const twice = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&grant_type=authorization_code",
    })
    expect(twice.status).toBe(400)
  })

  it("keeps grants in the database: after a restart the token still opens /mcp", async () => {
    const { tokens } = await grant()
    await server.close()
    server = await startServer({ dataDir, port: Number(new URL(origin).port), publicUrl: origin })
    expect((await authorize(tokens.access_token))._tag).toBe("Right")
  })
})

import * as Crypto from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Option, TestClock } from "effect"
import * as Ids from "../../src/ids/Ids.js"
import * as McpGrants from "../../src/mcpserver/McpGrants.js"
import * as MemoryMcpGrantStore from "../../src/mcpserver/MemoryMcpGrantStore.js"

const resource = "https://aide.example/mcp"
const redirectUri = "http://127.0.0.1:5000/cb"
const layer = McpGrants.layer({ resource, issuer: "https://aide.example" }).pipe(
  Layer.provide(Layer.merge(MemoryMcpGrantStore.layer, Ids.layer)),
)

/** A registered client, the owner's approval of `tools` and the code's verifier. */
const approved = Effect.gen(function* () {
  const grants = yield* McpGrants.McpGrants
  const client = yield* grants.register({ client_name: "Editor", redirect_uris: [redirectUri] })
  const verifier = Crypto.randomBytes(32).toString("base64url")
  const params = {
    response_type: "code",
    client_id: client.id,
    redirect_uri: redirectUri,
    code_challenge: Crypto.createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource,
    scope: "memory_read memory_update",
  }
  const back = new URL(yield* grants.approve(params, ["memory_read"]))
  const exchange = {
    grant_type: "authorization_code",
    code: back.searchParams.get("code") ?? "",
    code_verifier: verifier,
    client_id: client.id,
    redirect_uri: redirectUri,
  }
  return { grants, exchange }
})

describe("McpGrants", () => {
  it.effect("a code lives 60 seconds", () =>
    Effect.gen(function* () {
      const { grants, exchange } = yield* approved
      yield* TestClock.adjust(Duration.seconds(61))
      const refused = yield* Effect.flip(grants.token(exchange))
      expect(refused).toMatchObject({ _tag: "OAuthError", error: "invalid_grant" })
    }).pipe(Effect.provide(layer)),
  )

  it.effect("an access token lives 10 minutes; the refresh token then gets a new one", () =>
    Effect.gen(function* () {
      const { grants, exchange } = yield* approved
      yield* TestClock.adjust(Duration.seconds(59))
      const pair = yield* grants.token(exchange)
      expect(pair.scope).toBe("memory_read")
      const principal = Option.getOrThrow(yield* grants.authenticate(pair.access_token))
      expect(principal).toMatchObject({ kind: "client", clientName: "Editor", tools: ["memory_read"] })
      yield* TestClock.adjust(Duration.minutes(10))
      expect(Option.isNone(yield* grants.authenticate(pair.access_token))).toBe(true)
      const next = yield* grants.token({ grant_type: "refresh_token", refresh_token: pair.refresh_token })
      expect(Option.isSome(yield* grants.authenticate(next.access_token))).toBe(true)
    }).pipe(Effect.provide(layer)),
  )

  it.effect("a refresh token presented by another client revokes the grant", () =>
    Effect.gen(function* () {
      const { grants, exchange } = yield* approved
      const pair = yield* grants.token(exchange)
      const stolen = yield* Effect.either(
        grants.token({ grant_type: "refresh_token", refresh_token: pair.refresh_token, client_id: "someone-else" }),
      )
      expect(Either.isLeft(stolen)).toBe(true)
      expect(Option.isNone(yield* grants.authenticate(pair.access_token))).toBe(true)
      expect(yield* grants.list).toEqual([])
    }).pipe(Effect.provide(layer)),
  )

  it.effect("the owner narrows a request, never widens it", () =>
    Effect.gen(function* () {
      const { grants, exchange } = yield* approved
      const verifier = Crypto.randomBytes(32).toString("base64url")
      const request = {
        response_type: "code",
        client_id: exchange.client_id,
        redirect_uri: redirectUri,
        code_challenge: Crypto.createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      }
      // No scope: the read-only tools.
      const check = yield* grants.check(request)
      expect(check.tools).not.toContain("memory_update")
      expect(check.tools).toContain("memory_read")
      const unknown = yield* Effect.flip(grants.check({ ...request, scope: "memory_read rm_rf" }))
      expect(unknown).toMatchObject({ _tag: "AuthorizeRedirect", error: "invalid_scope" })
      // Tools ticked beyond those asked for are not granted.
      const back = new URL(yield* grants.approve({ ...request, scope: "inbox_list" }, ["inbox_list", "notify"]))
      const pair = yield* grants.token({
        ...exchange,
        code: back.searchParams.get("code") ?? "",
        code_verifier: verifier,
      })
      expect(pair.scope).toBe("inbox_list")
    }).pipe(Effect.provide(layer)),
  )
})

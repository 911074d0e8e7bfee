import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Auth from "../../src/auth/Auth.js"
import * as PasswordHasher from "../../src/auth/PasswordHasher.js"
import * as Kernel from "../../src/Kernel.js"
import * as McpAuthorizer from "../../src/mcpserver/McpAuthorizer.js"

const client = { userAgent: "test", ip: "127.0.0.1" }
const kernel = Kernel.layerMemory({ passwordHasher: PasswordHasher.layerTest })
const layer = Layer.provideMerge(McpAuthorizer.layerOwner, kernel)

describe("McpAuthorizer.layerOwner", () => {
  it.effect("accepts the owner's access token until its session is revoked", () =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const authorizer = yield* McpAuthorizer.McpAuthorizer
      const pair = yield* auth.setup("correct horse battery staple", client)
      const principal = yield* authorizer.authorize(pair.token)
      expect(principal.kind).toBe("owner")
      yield* auth.logout(principal as { sessionId: string })
      const refused = yield* Effect.flip(authorizer.authorize(pair.token))
      expect(refused._tag).toBe("McpUnauthorized")
    }).pipe(Effect.provide(layer)),
  )

  it.effect("refuses no token, an empty one and a forged one", () =>
    Effect.gen(function* () {
      const authorizer = yield* McpAuthorizer.McpAuthorizer
      for (const bearer of [undefined, "", "aide_mcp_not-a-token", "x".repeat(100_000)]) {
        expect((yield* Effect.flip(authorizer.authorize(bearer)))._tag).toBe("McpUnauthorized")
      }
    }).pipe(Effect.provide(layer)),
  )
})

describe("bearerToken", () => {
  it("takes the token of a Bearer header only", () => {
    expect(McpAuthorizer.bearerToken("Bearer abc.def")).toBe("abc.def")
    expect(McpAuthorizer.bearerToken("bearer  abc")).toBe("abc")
    expect(McpAuthorizer.bearerToken("Basic abc")).toBeUndefined()
    expect(McpAuthorizer.bearerToken(undefined)).toBeUndefined()
    expect(McpAuthorizer.bearerToken("Bearer a b")).toBeUndefined()
  })
})

describe("allowedTools", () => {
  it("is the owner's choice, narrowed to a client's grant", () => {
    const configured = ["ask", "memory_read", "inbox_list"]
    expect(McpAuthorizer.allowedTools({ kind: "owner", sessionId: "s" }, configured)).toEqual(configured)
    const client = { kind: "client", clientId: "c", clientName: "C", grantId: "g" } as const
    expect(McpAuthorizer.allowedTools({ ...client, tools: "all" }, configured)).toEqual(configured)
    expect(McpAuthorizer.allowedTools({ ...client, tools: ["memory_read", "notify"] }, configured)).toEqual([
      "memory_read",
    ])
  })
})

import { McpOAuthStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { McpOAuthStore } = Module
const url = "https://mcp.example/mcp"

/**
 * The contract of `McpOAuthStore`: credentials bound to the server URL they were obtained for,
 * single-use authorization states. Run it on your store's Layer (a fresh store per test).
 */
export const mcpOAuthStoreContract = (name: string, store: Layer.Layer<Module.McpOAuthStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("client information and tokens are read back for their URL only", () =>
      Effect.gen(function* () {
        const oauth = yield* McpOAuthStore
        yield* oauth.saveClientInformation("srv", url, { client_id: "c" })
        yield* oauth.saveTokens("srv", url, { access_token: "t" })
        expect(yield* oauth.clientInformation("srv", url)).toEqual({ client_id: "c" })
        expect(yield* oauth.tokens("srv", url)).toEqual({ access_token: "t" })
        expect(yield* oauth.tokens("srv", "https://other.example/mcp")).toBeUndefined()
        // Saving for another URL drops what belonged to the old one.
        yield* oauth.saveTokens("srv", "https://other.example/mcp", { access_token: "u" })
        expect(yield* oauth.clientInformation("srv", "https://other.example/mcp")).toBeUndefined()
        yield* oauth.clear("srv", "tokens")
        expect(yield* oauth.tokens("srv", "https://other.example/mcp")).toBeUndefined()
      }),
    )

    it.effect("an authorization state is taken once; dropPending forgets a server's", () =>
      Effect.gen(function* () {
        const oauth = yield* McpOAuthStore
        const pending = { serverId: "srv", serverUrl: url, codeVerifier: "v", expiresAt: new Date(60_000) }
        yield* oauth.addPending("s1", pending)
        yield* oauth.addPending("s2", pending)
        expect(yield* oauth.takePending("s1")).toEqual(Option.some(pending))
        expect(yield* oauth.takePending("s1")).toEqual(Option.none())
        yield* oauth.dropPending("srv")
        expect(yield* oauth.takePending("s2")).toEqual(Option.none())
      }),
    )
  })

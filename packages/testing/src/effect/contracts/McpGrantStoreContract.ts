import { McpGrantStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { McpGrantStore } = Module

const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-01T00:00:30.000Z"
const t2 = "2026-01-01T00:02:00.000Z"
const later = "2026-02-01T00:00:00.000Z"

const client = { id: "c1", name: "Editor", redirectUris: ["http://127.0.0.1:9999/cb"], createdAt: t0 }
const code = (hash: string) => ({
  hash,
  clientId: "c1",
  redirectUri: "http://127.0.0.1:9999/cb",
  codeChallenge: "x".repeat(43),
  resource: "https://aide.example/mcp",
  tools: ["memory_read"],
  createdAt: t0,
  expiresAt: "2026-01-01T00:01:00.000Z",
})
const grant = (id: string) => ({
  id,
  clientId: "c1",
  tools: ["memory_read"],
  resource: "https://aide.example/mcp",
  createdAt: t1,
  expiresAt: later,
})
const tokens = (grantId: string, n: string) => [
  { hash: `at-${n}`, grantId, kind: "access" as const, expiresAt: "2026-01-01T00:10:00.000Z" },
  { hash: `rt-${n}`, grantId, kind: "refresh" as const, expiresAt: later },
]

/**
 * The contract of `McpGrantStore`: run it on your store's Layer (a fresh store per test).
 *
 * @example
 * mcpGrantStoreContract("MyGrants", MyGrants.layer)
 */
export const mcpGrantStoreContract = (name: string, store: Layer.Layer<Module.McpGrantStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("redeems a code once, only while unexpired, and authenticates its access token", () =>
      Effect.gen(function* () {
        const grants = yield* McpGrantStore
        yield* grants.createClient(client)
        expect(yield* grants.getClient("c1")).toEqual(Option.some(client))
        yield* grants.createCode(code("k1"))
        yield* grants.createCode(code("k2"))
        expect(Option.isNone(yield* grants.redeemCode({ hash: "k2", now: t2, grant: grant("late"), tokens: [] }))).toBe(
          true,
        )
        const [first, second] = yield* Effect.all(
          [
            grants.redeemCode({ hash: "k1", now: t1, grant: grant("g1"), tokens: tokens("g1", "1") }),
            grants.redeemCode({ hash: "k1", now: t1, grant: grant("g2"), tokens: tokens("g2", "2") }),
          ],
          { concurrency: 2 },
        )
        expect([first, second].filter(Option.isSome)).toHaveLength(1)
        const used = Option.getOrThrow(yield* grants.findCode("k1"))
        expect(used.usedAt).toBe(t1)
        const winner = Option.isSome(first) ? "g1" : "g2"
        expect(used.grantId).toBe(winner)
        const seen = Option.getOrThrow(yield* grants.authenticate(`at-${winner === "g1" ? "1" : "2"}`, t1))
        expect(seen).toMatchObject({ id: winner, clientName: "Editor", tools: ["memory_read"] })
        expect(Option.isNone(yield* grants.authenticate(`rt-${winner === "g1" ? "1" : "2"}`, t1))).toBe(true)
      }),
    )

    it.effect("rotates a refresh token once; a revoked grant's tokens work no more", () =>
      Effect.gen(function* () {
        const grants = yield* McpGrantStore
        yield* grants.createClient(client)
        yield* grants.createCode(code("k1"))
        yield* grants.redeemCode({ hash: "k1", now: t1, grant: grant("g1"), tokens: tokens("g1", "1") })
        const rotated = yield* grants.rotateRefreshToken({
          hash: "rt-1",
          now: t2,
          expiresAt: later,
          tokens: tokens("g1", "2"),
        })
        expect(Option.getOrThrow(rotated).id).toBe("g1")
        expect(Option.getOrThrow(yield* grants.findToken("rt-1")).rotatedAt).toBe(t2)
        expect(
          Option.isNone(yield* grants.rotateRefreshToken({ hash: "rt-1", now: t2, expiresAt: later, tokens: [] })),
        ).toBe(true)
        expect((yield* grants.listGrants(t2)).map((g) => g.id)).toEqual(["g1"])
        expect(yield* grants.revokeGrant("g1", t2)).toBe(true)
        expect(yield* grants.revokeGrant("g1", t2)).toBe(false)
        expect(Option.isNone(yield* grants.authenticate("at-2", t2))).toBe(true)
        expect(
          Option.isNone(yield* grants.rotateRefreshToken({ hash: "rt-2", now: t2, expiresAt: later, tokens: [] })),
        ).toBe(true)
        expect(yield* grants.listGrants(t2)).toEqual([])
      }),
    )

    it.effect("purges what expired and unused clients, leaving live rows", () =>
      Effect.gen(function* () {
        const grants = yield* McpGrantStore
        yield* grants.createClient(client)
        yield* grants.createClient({ ...client, id: "c2" })
        yield* grants.createCode(code("k1"))
        yield* grants.redeemCode({ hash: "k1", now: t1, grant: grant("g1"), tokens: tokens("g1", "1") })
        expect(yield* grants.purgeUnusedClients(t1)).toBe(1)
        expect(yield* grants.countClients).toBe(1)
        yield* grants.purge("2026-01-01T00:20:00.000Z")
        expect(Option.isNone(yield* grants.findCode("k1"))).toBe(true)
        expect(Option.isNone(yield* grants.findToken("at-1"))).toBe(true)
        expect(Option.isSome(yield* grants.findToken("rt-1"))).toBe(true)
      }),
    )
  })

import { McpSessionStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { McpSessionStore } = Module

const record = (id: string, createdAt = new Date("2026-01-02T03:04:05.000Z")) => ({
  id,
  principal: "owner:s1",
  initialize: JSON.stringify({
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  }),
  subscriptions: [] as ReadonlyArray<string>,
  createdAt,
})

/**
 * The contract of `McpSessionStore`: run it on your store's Layer (a fresh store per test).
 *
 * @example
 * mcpSessionStoreContract("MySessions", MySessions.layer)
 */
export const mcpSessionStoreContract = (name: string, store: Layer.Layer<Module.McpSessionStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("answers what was stored, with the latest subscriptions", () =>
      Effect.gen(function* () {
        const sessions = yield* McpSessionStore
        expect(Option.isNone(yield* sessions.get("a"))).toBe(true)
        yield* sessions.create(record("a"))
        expect(yield* sessions.get("a")).toEqual(Option.some(record("a")))
        yield* sessions.setSubscriptions("a", ["aide://memory/working", "aide://inbox"])
        const stored = Option.getOrThrow(yield* sessions.get("a"))
        expect(stored.subscriptions).toEqual(["aide://memory/working", "aide://inbox"])
        yield* sessions.setSubscriptions("unknown", ["x"])
        expect(Option.isNone(yield* sessions.get("unknown"))).toBe(true)
      }),
    )

    it.effect("a second create of one id keeps the first", () =>
      Effect.gen(function* () {
        const sessions = yield* McpSessionStore
        yield* sessions.create(record("a"))
        yield* sessions.create({ ...record("a"), principal: "client:g" })
        expect(Option.getOrThrow(yield* sessions.get("a")).principal).toBe("owner:s1")
      }),
    )

    it.effect("delete and deleteBefore remove sessions", () =>
      Effect.gen(function* () {
        const sessions = yield* McpSessionStore
        yield* sessions.create(record("old", new Date("2026-01-01T00:00:00.000Z")))
        yield* sessions.create(record("new", new Date("2026-03-01T00:00:00.000Z")))
        yield* sessions.create(record("gone"))
        yield* sessions.delete("gone")
        yield* sessions.delete("never")
        yield* sessions.deleteBefore(new Date("2026-02-01T00:00:00.000Z"))
        expect(Option.isNone(yield* sessions.get("old"))).toBe(true)
        expect(Option.isSome(yield* sessions.get("new"))).toBe(true)
        expect(Option.isNone(yield* sessions.get("gone"))).toBe(true)
      }),
    )
  })

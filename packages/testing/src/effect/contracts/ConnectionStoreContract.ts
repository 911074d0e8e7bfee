import { ConnectionStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { ConnectionStore } = Module

/**
 * The contract of `ConnectionStore`: one sealed value per provider, replaced by a put, listed by
 * provider id, removed once. Run it on your store's Layer (a fresh store per test).
 */
export const connectionStoreContract = (name: string, store: Layer.Layer<Module.ConnectionStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect(
      "a put replaces the provider's sealed value; list is by provider id; remove answers whether there was one",
      () =>
        Effect.gen(function* () {
          const connections = yield* ConnectionStore
          expect(yield* connections.list).toEqual([])
          yield* connections.put("openai", "v1.a")
          const first = yield* connections.put("groq", "v1.b")
          expect(first).toMatchObject({ provider: "groq", sealed: "v1.b" })
          expect(first.updatedAt).toBeInstanceOf(Date)
          yield* connections.put("openai", "v1.c")
          const listed = yield* connections.list
          expect(listed.map((row) => [row.provider, row.sealed])).toEqual([
            ["groq", "v1.b"],
            ["openai", "v1.c"],
          ])
          expect(yield* connections.remove("openai")).toBe(true)
          expect(yield* connections.remove("openai")).toBe(false)
          expect((yield* connections.list).map((row) => row.provider)).toEqual(["groq"])
        }),
    )
  })

import { PushStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { PushStore } = Module

const subscription = (n: number, at = n) => ({
  endpoint: `https://push.example/${n}`,
  p256dh: `key-${n}`,
  auth: `auth-${n}`,
  createdAt: new Date(at * 1000),
})

/**
 * The contract of `PushStore`: one VAPID key pair (the first stored), subscriptions keyed by
 * endpoint under a cap. Run it on your store's Layer (a fresh store per test).
 */
export const pushStoreContract = (name: string, store: Layer.Layer<Module.PushStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("the first VAPID key pair stored stays", () =>
      Effect.gen(function* () {
        const push = yield* PushStore
        const first = { publicKey: "pub-1", privateKey: "priv-1" }
        expect(yield* push.vapidKeys(first)).toEqual(first)
        expect(yield* push.vapidKeys({ publicKey: "pub-2", privateKey: "priv-2" })).toEqual(first)
      }),
    )

    it.effect("subscriptions are kept by endpoint, oldest first, up to the cap", () =>
      Effect.gen(function* () {
        const push = yield* PushStore
        expect(yield* push.add(subscription(2), 2)).toBe("added")
        expect(yield* push.add(subscription(1), 2)).toBe("added")
        expect(yield* push.add(subscription(3), 2)).toBe("full")
        // An endpoint already there gets its new keys, even at the cap, and keeps its place.
        expect(yield* push.add({ ...subscription(2, 9), p256dh: "new" }, 2)).toBe("updated")
        const listed = yield* push.list
        expect(listed.map((s) => [s.endpoint, s.p256dh])).toEqual([
          ["https://push.example/1", "key-1"],
          ["https://push.example/2", "new"],
        ])
        expect(listed[0]?.createdAt).toEqual(new Date(1000))
        expect(yield* push.remove("https://push.example/1")).toBe(true)
        expect(yield* push.remove("https://push.example/1")).toBe(false)
        expect(yield* push.add(subscription(3), 2)).toBe("added")
        expect((yield* push.list).map((s) => s.endpoint)).toEqual(["https://push.example/2", "https://push.example/3"])
      }),
    )
  })

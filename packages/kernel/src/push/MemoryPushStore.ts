import { Effect, Layer } from "effect"
import { PushStore, type PushSubscription, type VapidKeys } from "./PushStore.js"

/** `PushStore` in this process's memory: the key pair is new at each start, so browsers subscribe again. */
export const make = Effect.sync(() => {
  const subscriptions = new Map<string, PushSubscription>()
  let keys: VapidKeys | undefined
  return PushStore.of({
    vapidKeys: (candidate) =>
      Effect.sync(() => {
        keys ??= { ...candidate }
        return keys
      }),
    add: (subscription, cap) =>
      Effect.sync(() => {
        const old = subscriptions.get(subscription.endpoint)
        if (old !== undefined) {
          subscriptions.set(subscription.endpoint, { ...subscription, createdAt: old.createdAt })
          return "updated" as const
        }
        if (subscriptions.size >= cap) return "full" as const
        subscriptions.set(subscription.endpoint, { ...subscription })
        return "added" as const
      }),
    remove: (endpoint) => Effect.sync(() => subscriptions.delete(endpoint)),
    list: Effect.sync(() =>
      Array.from(subscriptions.values()).sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.endpoint < b.endpoint ? -1 : 1),
      ),
    ),
  })
})

export const layer: Layer.Layer<PushStore> = Layer.effect(PushStore, make)

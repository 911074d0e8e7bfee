import { Context, type Effect } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A browser's push subscription (the `PushSubscription` JSON's endpoint and keys, base64url). */
export interface PushSubscription {
  readonly endpoint: string
  readonly p256dh: string
  readonly auth: string
  readonly createdAt: Date
}

/** The server's VAPID key pair: the raw P-256 public point and private scalar, base64url. */
export interface VapidKeys {
  readonly publicKey: string
  readonly privateKey: string
}

/** What `add` did: a new endpoint, one already there (keys replaced), or none because `cap` are kept. */
export type AddResult = "added" | "updated" | "full"

/**
 * What Web Push keeps: the subscriptions and the VAPID key pair. `pushStoreContract` of
 * `@aide/testing/effect` checks the rules stated on each method.
 */
export class PushStore extends Context.Tag("@aide/kernel/PushStore")<
  PushStore,
  {
    /**
     * The stored key pair; when there is none, `candidate` is stored and returned. The first
     * pair stored stays: later candidates are ignored (replicas starting together agree).
     */
    readonly vapidKeys: (candidate: VapidKeys) => Effect.Effect<VapidKeys, StorageError>
    /**
     * Stores the subscription. An endpoint already stored keeps its place and gets the new
     * keys (`updated`); a new one is refused (`full`) when `cap` subscriptions are stored.
     */
    readonly add: (subscription: PushSubscription, cap: number) => Effect.Effect<AddResult, StorageError>
    /** Removes the subscription of `endpoint`; false when there was none. */
    readonly remove: (endpoint: string) => Effect.Effect<boolean, StorageError>
    /** Every subscription, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<PushSubscription>, StorageError>
  }
>() {}

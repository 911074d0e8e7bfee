import { Context, Effect, Layer } from "effect"
import type { StorageError } from "../../storage/StorageError.js"
import * as ReplayCache from "./ReplayCache.js"

/** One accepted signature: its channel (`<pluginId>:<channelId>`), its digest, and its window's end. */
export interface ReplayEntry {
  readonly channel: string
  /** The HMAC's hex digest (`WebhookVerifier.check`'s `replay.key`): never stored for a bad signature. */
  readonly signature: string
  /** Unix seconds: the end of the window, past which the request is refused anyway (or may pass again). */
  readonly until: number
}

/** Signatures remembered per channel, by default: a flood on one channel cannot push out another's. */
export const defaultMaxEntries = ReplayCache.defaultMaxEntries

/**
 * Where the webhook route remembers the signatures it accepted, until their windows end, so a
 * captured request sent again is refused (409). Shared by every replica on the same store: with
 * PostgreSQL or Redis a request accepted by one replica is refused by the others, and on SQLite
 * after a restart. Only signatures that verified reach it (an attacker without the secret writes
 * nothing), and each store keeps at most about `maxEntries` live ones per channel: past that the
 * nearest to the end of their window go first (a replay of one of those would pass again; reaching
 * that needs more requests signed with the channel's secret within the window than the bound).
 *
 * Rules an implementation keeps (`webhookReplaysContract` in `@aide/testing/effect` checks them):
 * - `remember` is one atomic decision: of concurrent calls for one entry, exactly one is `true`,
 *   on every replica sharing the store.
 * - An entry whose `until` is before `nowSeconds` is gone: remembering it again is `true` (at
 *   `nowSeconds === until` it is still remembered: `false`).
 * - Channels are apart: the same signature on two channels is two entries, and the bound is per
 *   channel (a flood on one keeps another's).
 * - The bound is kept as soon as it is passed: with `maxEntries` 3, a 4th live entry drops the
 *   one whose `until` comes first, which is then new again.
 * - `forget` of an entry never remembered does nothing.
 */
export class WebhookReplays extends Context.Tag("@aide/kernel/WebhookReplays")<
  WebhookReplays,
  {
    /** Remembers the entry until `until`; true when it was new (not remembered with its window open at `nowSeconds`). */
    readonly remember: (entry: ReplayEntry, nowSeconds: number) => Effect.Effect<boolean, StorageError>
    /** Drops the entry: a request whose handling failed may be sent again. */
    readonly forget: (channel: string, signature: string) => Effect.Effect<void, StorageError>
  }
>() {}

/** In this process's memory (one `ReplayCache` per channel): forgotten on restart, not shared by replicas. */
export const makeMemory = (maxEntries: number = defaultMaxEntries) =>
  Effect.sync(() => {
    const caches = new Map<string, ReplayCache.ReplayCache>()
    const cacheOf = (channel: string) => {
      const found = caches.get(channel)
      if (found !== undefined) return found
      const made = ReplayCache.make(maxEntries)
      caches.set(channel, made)
      return made
    }
    return WebhookReplays.of({
      remember: (entry, nowSeconds) =>
        Effect.sync(() => !cacheOf(entry.channel).seen(entry.signature, entry.until, nowSeconds)),
      forget: (channel, signature) => Effect.sync(() => caches.get(channel)?.forget(signature)),
    })
  })

export const layerMemory: Layer.Layer<WebhookReplays> = Layer.effect(WebhookReplays, makeMemory())

/** In memory with another bound per channel (tests). */
export const layerMemoryWith = (options: { readonly maxEntries?: number }): Layer.Layer<WebhookReplays> =>
  Layer.effect(WebhookReplays, makeMemory(options.maxEntries))

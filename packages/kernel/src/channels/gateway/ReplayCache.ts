/**
 * Signatures of webhook requests already accepted, each until its replay window ends: a request
 * captured on the way (a log, a proxy) and sent again is refused. Bounded: past `maxEntries`,
 * expired entries go first, then the oldest (a replay of one of those, inside its window, would
 * pass again; reaching that needs more accepted requests within the window than the bound,
 * against the webhook routes' per-address rate limit). One process's memory: the in-memory
 * `WebhookReplays` (one per channel); the SQL and Redis stores keep theirs where replicas share it.
 */
export interface ReplayCache {
  /** True when `key` was accepted before and its window has not ended; else records it. */
  readonly seen: (key: string, untilSeconds: number, nowSeconds: number) => boolean
  /** Drops `key`: a request whose handling failed may be sent again. */
  readonly forget: (key: string) => void
  readonly size: () => number
}

export const defaultMaxEntries = 10_000

export const make = (maxEntries: number = defaultMaxEntries): ReplayCache => {
  // Insertion order is acceptance order: the first entries are the oldest.
  const entries = new Map<string, number>()
  const sweep = (nowSeconds: number) => {
    for (const [key, until] of entries) if (until < nowSeconds) entries.delete(key)
  }
  return {
    seen: (key, untilSeconds, nowSeconds) => {
      const until = entries.get(key)
      if (until !== undefined && until >= nowSeconds) return true
      entries.delete(key)
      if (entries.size >= maxEntries) sweep(nowSeconds)
      while (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        entries.delete(oldest)
      }
      entries.set(key, untilSeconds)
      return false
    },
    forget: (key) => void entries.delete(key),
    size: () => entries.size,
  }
}

import { Clock, Context, Duration, Effect, Layer } from "effect"

/** The outcome of one request against a limit. */
export interface RateLimitDecision {
  readonly allowed: boolean
  readonly limit: number
  /** Requests left in the current window after this one. */
  readonly remaining: number
  /** Time until the window resets. */
  readonly resetAfter: Duration.Duration
}

export interface RateLimit {
  readonly limit: number
  readonly window: Duration.Duration
}

/** Counts requests per key (e.g. route + client IP) in fixed windows. */
export class RateLimiter extends Context.Tag("@aide/kernel/RateLimiter")<
  RateLimiter,
  {
    /** Counts one request for `key` and says whether it is within `limit`. */
    readonly consume: (key: string, limit: RateLimit) => Effect.Effect<RateLimitDecision>
    /**
     * Reads `key`'s window without counting: `allowed` says whether one more request would be
     * within `limit`. For budgets spent only by failures (a wrong Bearer), checked before each try.
     */
    readonly peek: (key: string, limit: RateLimit) => Effect.Effect<RateLimitDecision>
  }
>() {}

interface Window {
  readonly startedAt: number
  count: number
}

/** The decision after `count` requests in a window ending in `resetMillis`. */
const decision = (count: number, limit: RateLimit, resetMillis: number): RateLimitDecision => ({
  allowed: count <= limit.limit,
  limit: limit.limit,
  remaining: Math.max(0, limit.limit - count),
  resetAfter: Duration.millis(resetMillis),
})

/** Expired windows are swept once this many keys are held, so memory stays bounded by traffic. */
const sweepThreshold = 10_000

/**
 * Fixed windows kept in this process's memory. Good for one server; replicas that must share
 * counters need a shared store (the scale-out Redis Layer).
 */
export const makeMemory = Effect.sync(() => {
  const windows = new Map<string, Window>()
  let longestWindowMillis = 0

  const sweep = (now: number) => {
    for (const [key, window] of windows) {
      if (now - window.startedAt >= longestWindowMillis) windows.delete(key)
    }
  }

  const consume = (key: string, limit: RateLimit) =>
    Effect.map(Clock.currentTimeMillis, (now): RateLimitDecision => {
      const windowMillis = Duration.toMillis(limit.window)
      longestWindowMillis = Math.max(longestWindowMillis, windowMillis)
      if (windows.size >= sweepThreshold) sweep(now)
      let window = windows.get(key)
      if (window === undefined || now - window.startedAt >= windowMillis) {
        window = { startedAt: now, count: 0 }
        windows.set(key, window)
      }
      window.count += 1
      return decision(window.count, limit, window.startedAt + windowMillis - now)
    })

  const peek = (key: string, limit: RateLimit) =>
    Effect.map(Clock.currentTimeMillis, (now): RateLimitDecision => {
      const windowMillis = Duration.toMillis(limit.window)
      const window = windows.get(key)
      if (window === undefined || now - window.startedAt >= windowMillis) return decision(0, limit, windowMillis)
      return {
        ...decision(window.count, limit, window.startedAt + windowMillis - now),
        allowed: window.count < limit.limit,
      }
    })

  return RateLimiter.of({ consume, peek })
})

export const layerMemory: Layer.Layer<RateLimiter> = Layer.effect(RateLimiter, makeMemory)

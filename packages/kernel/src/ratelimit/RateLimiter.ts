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
  }
>() {}

interface Window {
  readonly startedAt: number
  count: number
}

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
      return {
        allowed: window.count <= limit.limit,
        limit: limit.limit,
        remaining: Math.max(0, limit.limit - window.count),
        resetAfter: Duration.millis(window.startedAt + windowMillis - now),
      }
    })

  return RateLimiter.of({ consume })
})

export const layerMemory: Layer.Layer<RateLimiter> = Layer.effect(RateLimiter, makeMemory)

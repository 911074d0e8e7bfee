/**
 * Restart policy of a plugin process: after a crash, a timeout or a failed restart, wait
 * (1 s doubling to 60 s by default), then start again; calls in between fail fast. A process
 * that stayed up for `maxMs` earns its next restart the initial delay again.
 */

export interface Backoff {
  readonly initialMs: number
  readonly maxMs: number
}

export const defaultBackoff: Backoff = { initialMs: 1_000, maxMs: 60_000 }

export interface Delays {
  /** The wait before the next restart. */
  readonly next: (upSinceMs: number | undefined, now: number) => number
}

export const delays = (backoff: Backoff): Delays => {
  let current = backoff.initialMs
  return {
    next: (upSinceMs, now) => {
      if (upSinceMs !== undefined && now - upSinceMs >= backoff.maxMs) current = backoff.initialMs
      const delay = current
      current = Math.min(current * 2, backoff.maxMs)
      return delay
    },
  }
}

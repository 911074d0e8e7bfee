import type { Handler } from "./BrokeredFetch.js"

/**
 * A plugin's brokered fetches, bounded before the broker does any work (issue 32, item 4): at
 * most `inFlight` at a time (until the answer is back on its way) and a token bucket of
 * `perSecond` with bursts of `burst`. Every call takes a token, those the broker then refuses
 * included: an address the guard refuses still cost the host a URL parse, a Request and an
 * error, and 20,000 of them in a loop cost ~3.5 s of the server's CPU.
 *
 * A call over a bound is refused without being looked at, but its answer waits for the next
 * batch, sent every `refusalDelayMs`: answered at once, a plugin that loops on a refused fetch
 * would still cost the host a message read and written per turn; held, it gets ~10 turns a
 * second. What is held is bounded by the wire's own cap on requests in flight (Child.maxServed).
 */

export interface FetchLimits {
  /** Fetches served at once; the next is refused (not queued). */
  readonly inFlight: number
  /** Tokens added per second. */
  readonly perSecond: number
  /** The bucket's size: fetches allowed at once after a quiet spell. */
  readonly burst: number
}

export const defaultFetchLimits: FetchLimits = { inFlight: 8, perSecond: 10, burst: 20 }

/** How long a refusal by the limiter waits for its answer, with the others of its batch. */
export const refusalDelayMs = 100
/** Refusals held at most (the wire lets 64 requests in at once); past it they are answered at once. */
const maxHeld = 256

export interface LimitedFetch {
  readonly handle: Handler
  /** Answers the held refusals now (the plugin is stopping). */
  readonly close: () => void
}

/** How refusals name what is limited (sockets reuse the limiter: "socket refused: …"). */
export interface LimitedWhat {
  readonly what: string
  readonly plural: string
}

export const limitFetches = (
  limits: FetchLimits,
  handler: Handler,
  now: () => number = Date.now,
  { what, plural }: LimitedWhat = { what: "fetch", plural: "fetches" },
): LimitedFetch => {
  let active = 0
  let tokens = limits.burst
  let refilledAt = now()
  let held: Array<() => void> = []
  let timer: ReturnType<typeof setTimeout> | undefined

  const take = (): boolean => {
    const at = now()
    tokens = Math.min(limits.burst, tokens + ((at - refilledAt) * limits.perSecond) / 1_000)
    refilledAt = at
    if (tokens < 1) return false
    tokens -= 1
    return true
  }
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    const batch = held
    held = []
    for (const refuse of batch) refuse()
  }
  const refuseLater = (message: string): Promise<never> =>
    held.length >= maxHeld
      ? Promise.reject(new Error(message))
      : new Promise<never>((_, reject) => {
          held.push(() => reject(new Error(message)))
          if (timer === undefined) {
            timer = setTimeout(flush, refusalDelayMs)
            timer.unref()
          }
        })
  const inFlightText = `${what} refused: more than ${limits.inFlight} ${plural} in flight`
  const rateText = `${what} refused: rate limited (${limits.perSecond} ${plural} a second, bursts of ${limits.burst}); try again later`

  const handle: Handler = (params, signal) => {
    if (active >= limits.inFlight) return refuseLater(inFlightText)
    if (!take()) return refuseLater(rateText)
    active += 1
    // A handler that throws synchronously still gives its slot back.
    return Promise.resolve()
      .then(() => handler(params, signal))
      .finally(() => {
        active -= 1
      })
  }
  return { handle, close: flush }
}

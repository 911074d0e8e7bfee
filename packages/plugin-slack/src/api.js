// @ts-check
/**
 * Slack's Web API over the channel's brokered `fetch`: form-encoded POSTs (every method takes
 * them; objects such as `blocks` go as JSON strings), a 429's `Retry-After` honoured, and errors
 * that say whether Slack answered (then nothing was done) or the outcome is unknown.
 */

/** Slack answered `ok: false` (or refused the call): the method did nothing. */
export class SlackApiError extends Error {
  /**
   * @param {string} method
   * @param {string} code Slack's `error`, e.g. `invalid_auth`, `channel_not_found`, `ratelimited`
   */
  constructor(method, code) {
    super(`slack: ${method} failed: ${code}`)
    this.name = "SlackApiError"
    this.method = method
    this.code = code
  }
}

/** The call may or may not have taken effect: no answer, a dropped connection, a 5xx. */
export class SlackUnknownOutcome extends Error {
  /**
   * @param {string} method
   * @param {string} reason
   */
  constructor(method, reason) {
    super(`slack: ${method} got no answer: ${reason}`)
    this.name = "SlackUnknownOutcome"
    this.method = method
  }
}

/** Waits on 429s at most this long each (Slack's Retry-After is usually a few seconds). */
const MAX_RETRY_AFTER_MS = 30_000
/** 429s in a row before giving up. */
const MAX_RATE_LIMITED = 3
/** Every call is bounded. */
const CALL_TIMEOUT_MS = 30_000

/**
 * Sleeps `ms`, or until `signal` aborts (then rejects with its reason).
 * @param {number} ms
 * @param {AbortSignal} signal
 */
export const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop)
      resolve(undefined)
    }, ms)
    const stop = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener("abort", stop, { once: true })
  })

/** @param {string | null} header */
const retryAfterMs = (header) => {
  const seconds = Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : 1000
}

/** @param {Record<string, unknown>} args */
const formOf = (args) => {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue
    form.set(key, typeof value === "string" ? value : JSON.stringify(value))
  }
  return form
}

/**
 * @typedef {object} Api
 * @property {(method: string, token: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<any>} call
 */

/**
 * @param {string} apiRoot e.g. `https://slack.com/api`
 * @param {typeof fetch} fetcher the channel context's brokered fetch
 * @returns {Api}
 */
export const makeApi = (apiRoot, fetcher) => ({
  call: async (method, token, args, signal) => {
    for (let limited = 0; ; limited++) {
      let response
      try {
        response = await fetcher(`${apiRoot}/${method}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
          body: formOf(args).toString(),
          signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
        })
      } catch (error) {
        if (signal.aborted) throw error
        throw new SlackUnknownOutcome(method, error instanceof Error ? error.message : String(error))
      }
      if (response.status === 429) {
        // Rate limited: Slack did not run the method, so calling again is safe.
        await response.body?.cancel()
        if (limited + 1 >= MAX_RATE_LIMITED) throw new SlackApiError(method, "ratelimited")
        await sleep(retryAfterMs(response.headers.get("retry-after")), signal)
        continue
      }
      if (response.status >= 500) {
        await response.body?.cancel()
        throw new SlackUnknownOutcome(method, `HTTP ${response.status}`)
      }
      let body
      try {
        body = await response.json()
      } catch {
        throw new SlackUnknownOutcome(method, `HTTP ${response.status} without a JSON answer`)
      }
      if (body?.ok !== true) throw new SlackApiError(method, String(body?.error ?? `HTTP ${response.status}`))
      return body
    }
  },
})

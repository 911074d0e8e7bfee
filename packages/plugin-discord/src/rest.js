// @ts-check
/**
 * Discord's REST API, as the channel uses it: `Authorization: Bot <token>`, JSON both ways, and
 * Discord's rate limits honoured (discord-api-docs `developers/topics/rate-limits.mdx`):
 * - a bucket whose `X-RateLimit-Remaining` reached 0 waits `X-RateLimit-Reset-After` seconds
 *   before its next request, so a long reply sent in chunks does not run into a 429;
 * - a 429 waits its `retry_after` (body, seconds; else `Retry-After`) and tries again, for the
 *   whole bot when `X-RateLimit-Global` / `"global": true` says so;
 * - a request marked idempotent (a message created with a `nonce` and `enforce_nonce`) is also
 *   tried again after a network error or a 5xx, where the first attempt may have gone through.
 * The token never appears in an error or a log.
 */

/** Waits longer than this are not waited out: the request fails and Aide retries the reply later. */
export const MAX_WAIT_MS = 60_000
const ATTEMPTS = 5
const TIMEOUT_MS = 15_000
/** Bodies larger than this are not read (a message object is a few KiB). */
const MAX_BODY = 1024 * 1024

export class DiscordApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {number | undefined} code Discord's JSON error code
   */
  constructor(status, message, code) {
    super(message)
    this.name = "DiscordApiError"
    this.status = status
    this.code = code
  }
}

/**
 * Sleeps `ms`, or less when `signal` aborts (then rejects with its reason).
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @returns {Promise<void>}
 */
export const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

/**
 * The rate-limit key of a request: Discord's buckets are per route and "major parameter" (the
 * channel for messages), which the path holds; interaction callbacks are not rate limited.
 * @param {string} method
 * @param {string} path
 */
const routeOf = (method, path) => (path.startsWith("/interactions/") ? null : `${method} ${path}`)

/** @param {Response} response */
const readBody = async (response) => {
  const text = await response.text()
  if (text.length > MAX_BODY || text === "") return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** @param {string | null} value */
const seconds = (value) => {
  const number = Number(value)
  return value !== null && value !== "" && Number.isFinite(number) && number >= 0 ? number : null
}

/**
 * @typedef {object} RestOptions
 * @property {string} apiBase e.g. `https://discord.com/api/v10`
 * @property {string} token
 * @property {typeof fetch} fetch
 * @property {() => number} [now]
 */

/**
 * @typedef {object} RequestOptions
 * @property {unknown} [body]
 * @property {AbortSignal} [signal]
 * @property {boolean} [idempotent] also retried after a network error or a 5xx
 */

/** @param {RestOptions} options */
export const createRest = (options) => {
  const now = options.now ?? Date.now
  /** @type {Map<string, number>} route → when its bucket refills (ms), while it is empty */
  const emptyUntil = new Map()
  let globalUntil = 0

  /** @param {string | null} route @param {AbortSignal | undefined} signal */
  const waitForRoom = async (route, signal) => {
    const until = Math.max(globalUntil, route === null ? 0 : (emptyUntil.get(route) ?? 0))
    const wait = until - now()
    if (wait <= 0) return
    if (wait > MAX_WAIT_MS) throw new DiscordApiError(429, `rate limited for ${Math.ceil(wait / 1000)} s`, undefined)
    await sleep(wait, signal)
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} [request]
   * @returns {Promise<any>}
   */
  const call = async (method, path, request = {}) => {
    const route = routeOf(method, path)
    /** @type {unknown} */
    let lastError
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      await waitForRoom(route, request.signal)
      /** @type {Response} */
      let response
      try {
        response = await options.fetch(`${options.apiBase}${path}`, {
          method,
          headers: {
            authorization: `Bot ${options.token}`,
            "user-agent": "DiscordBot (https://github.com/aide, 0.1.0)",
            ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          signal:
            request.signal === undefined
              ? AbortSignal.timeout(TIMEOUT_MS)
              : AbortSignal.any([request.signal, AbortSignal.timeout(TIMEOUT_MS)]),
        })
      } catch (error) {
        // Aide's broker refuses a fetch past its per-plugin limits before sending anything: safe to retry.
        const refused = error instanceof Error && error.message.startsWith("fetch refused")
        if (request.signal?.aborted || (request.idempotent !== true && !refused)) throw error
        lastError = error
        await sleep(250 * 2 ** attempt, request.signal)
        continue
      }
      const remaining = seconds(response.headers.get("x-ratelimit-remaining"))
      const resetAfter = seconds(response.headers.get("x-ratelimit-reset-after"))
      if (route !== null && remaining === 0 && resetAfter !== null) emptyUntil.set(route, now() + resetAfter * 1000)
      else if (route !== null) emptyUntil.delete(route)
      if (response.status === 429) {
        const body = await readBody(response)
        const retryAfter = seconds(String(body?.retry_after ?? "")) ?? seconds(response.headers.get("retry-after")) ?? 1
        const until = now() + retryAfter * 1000
        if (response.headers.get("x-ratelimit-global") === "true" || body?.global === true) globalUntil = until
        else if (route !== null) emptyUntil.set(route, until)
        // A 429 was not carried out: always safe to try again.
        lastError = new DiscordApiError(429, `rate limited (retry after ${retryAfter} s)`, body?.code)
        continue
      }
      if (response.status >= 500 && request.idempotent === true) {
        await response.body?.cancel()
        lastError = new DiscordApiError(response.status, `Discord answered ${response.status}`, undefined)
        await sleep(250 * 2 ** attempt, request.signal)
        continue
      }
      const body = await readBody(response)
      if (!response.ok) {
        const detail = typeof body?.message === "string" ? `: ${body.message.slice(0, 200)}` : ""
        throw new DiscordApiError(response.status, `Discord answered ${response.status}${detail}`, body?.code)
      }
      return body
    }
    throw lastError
  }
  return { call }
}

/** @typedef {ReturnType<typeof createRest>} Rest */

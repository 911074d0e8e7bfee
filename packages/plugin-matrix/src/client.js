// @ts-check
/**
 * The Matrix client-server API, as the channel uses it (matrix-spec
 * `content/client-server-api/_index.md`): `Authorization: Bearer <token>`, JSON both ways,
 * errors `{ errcode, error }`. A 429 `M_LIMIT_EXCEEDED` waits `retry_after_ms` (or the
 * `Retry-After` header, which servers should send since v1.10) and tries again; requests that are
 * idempotent (a PUT with a transaction id, a sync) are also tried again after a network error or
 * a 5xx. The token never appears in an error or a log.
 */

/** Waits longer than this are not waited out: the request fails and Aide retries later. */
export const MAX_WAIT_MS = 60_000
const ATTEMPTS = 5
const MAX_BODY = 16 * 1024 * 1024

export class MatrixError extends Error {
  /**
   * @param {number} status
   * @param {string | undefined} errcode
   * @param {string} message
   */
  constructor(status, errcode, message) {
    super(message)
    this.name = "MatrixError"
    this.status = status
    this.errcode = errcode
  }
}

/**
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

/**
 * @typedef {object} ClientOptions
 * @property {string} homeserver e.g. `https://matrix.example.org`
 * @property {string} token
 * @property {typeof fetch} fetch
 */

/**
 * @typedef {object} CallOptions
 * @property {unknown} [body]
 * @property {AbortSignal} [signal]
 * @property {boolean} [idempotent] default: GET and PUT (Matrix's PUTs are idempotent by design)
 * @property {number} [timeoutMs] default 30 s
 */

/** @param {ClientOptions} options */
export const createClient = (options) => {
  /**
   * @param {string} method
   * @param {string} path after `/_matrix/client/v3`
   * @param {CallOptions} [call]
   * @returns {Promise<any>}
   */
  const request = async (method, path, call = {}) => {
    const idempotent = call.idempotent ?? (method === "GET" || method === "PUT")
    /** @type {unknown} */
    let lastError
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const timeout = AbortSignal.timeout(call.timeoutMs ?? 30_000)
      /** @type {Response} */
      let response
      try {
        response = await options.fetch(`${options.homeserver}/_matrix/client/v3${path}`, {
          method,
          headers: {
            authorization: `Bearer ${options.token}`,
            ...(call.body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
          signal: call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]),
        })
      } catch (error) {
        // Aide's broker refuses a fetch past its per-plugin limits before sending anything: safe to retry.
        const refused = error instanceof Error && error.message.startsWith("fetch refused")
        if (call.signal?.aborted || (!idempotent && !refused)) throw error
        lastError = error
        await sleep(250 * 2 ** attempt, call.signal)
        continue
      }
      if (response.status === 429) {
        const body = await readBody(response)
        const header = Number(response.headers.get("retry-after"))
        const waitMs =
          typeof body?.retry_after_ms === "number" && body.retry_after_ms >= 0
            ? body.retry_after_ms
            : Number.isFinite(header) && header >= 0
              ? header * 1000
              : 1000
        lastError = new MatrixError(429, "M_LIMIT_EXCEEDED", `rate limited (retry after ${waitMs} ms)`)
        if (waitMs > MAX_WAIT_MS) throw lastError
        // A 429 was not carried out: always safe to try again.
        await sleep(waitMs, call.signal)
        continue
      }
      if (response.status >= 500 && idempotent) {
        await response.body?.cancel()
        lastError = new MatrixError(response.status, undefined, `the homeserver answered ${response.status}`)
        await sleep(250 * 2 ** attempt, call.signal)
        continue
      }
      const body = await readBody(response)
      if (!response.ok) {
        const errcode = typeof body?.errcode === "string" ? body.errcode : undefined
        const detail = typeof body?.error === "string" ? `: ${body.error.slice(0, 200)}` : ""
        throw new MatrixError(
          response.status,
          errcode,
          `the homeserver answered ${response.status} ${errcode ?? ""}${detail}`.trim(),
        )
      }
      return body
    }
    throw lastError
  }
  return { request }
}

/** @typedef {ReturnType<typeof createClient>} Client */

/** @param {string} part */
export const enc = (part) => encodeURIComponent(part)

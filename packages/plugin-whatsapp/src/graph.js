// @ts-check
/**
 * The Graph API over the channel's brokered `fetch`. Errors say whether Meta answered (then the
 * message was not sent: `GraphError` with Meta's `code`) or the outcome is unknown.
 */

/** Meta answered with an error: nothing was sent. */
export class GraphError extends Error {
  /**
   * @param {number} status
   * @param {number} code Meta's error code (131047: outside the 24-hour window; 130429, 131056,
   *   80007, 4: rate limits; 190: expired token)
   * @param {string} detail
   */
  constructor(status, code, detail) {
    super(`whatsapp: the Graph API refused (HTTP ${status}, code ${code}): ${detail}`)
    this.name = "GraphError"
    this.status = status
    this.code = code
  }
}

/** No answer (a timeout, a dropped connection, a 5xx): the message may or may not be out. */
export class GraphUnknownOutcome extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(`whatsapp: the Graph API gave no answer: ${reason}`)
    this.name = "GraphUnknownOutcome"
  }
}

/** Meta's rate-limit codes: nothing was sent, waiting and sending again is safe. */
const RATE_LIMITED = new Set([4, 80007, 130429, 131056])
const MAX_RATE_LIMITED = 3
const MAX_WAIT_MS = 30_000
const CALL_TIMEOUT_MS = 30_000
/** Media larger than this is not downloaded. */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024

/**
 * @param {number} ms
 * @param {AbortSignal} signal
 */
const sleep = (ms, signal) =>
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

/**
 * @param {string} apiRoot
 * @param {string} token
 * @param {typeof fetch} fetcher
 */
export const makeGraph = (apiRoot, token, fetcher) => {
  /**
   * @param {string} url
   * @param {RequestInit} init
   * @param {AbortSignal} signal
   */
  const request = async (url, init, signal) => {
    try {
      return await fetcher(url, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
        signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
      })
    } catch (error) {
      if (signal.aborted) throw error
      throw new GraphUnknownOutcome(error instanceof Error ? error.message : String(error))
    }
  }
  /**
   * A JSON call; rate limits waited out (`Retry-After` when given, else 1 s, 2 s…).
   * @param {"GET" | "POST"} method
   * @param {string} path
   * @param {unknown} body
   * @param {AbortSignal} signal
   * @returns {Promise<any>}
   */
  const call = async (method, path, body, signal) => {
    for (let limited = 0; ; limited++) {
      const response = await request(
        `${apiRoot}/${path}`,
        method === "GET"
          ? { method }
          : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
        signal,
      )
      if (response.status >= 500) {
        await response.body?.cancel()
        throw new GraphUnknownOutcome(`HTTP ${response.status}`)
      }
      let answer
      try {
        answer = await response.json()
      } catch {
        throw new GraphUnknownOutcome(`HTTP ${response.status} without a JSON answer`)
      }
      if (response.ok && answer?.error === undefined) return answer
      const code = Number(answer?.error?.code ?? 0)
      const detail = String(answer?.error?.error_data?.details ?? answer?.error?.message ?? "unknown error").slice(
        0,
        300,
      )
      const error = new GraphError(response.status, code, detail)
      if (!(response.status === 429 || RATE_LIMITED.has(code)) || limited + 1 >= MAX_RATE_LIMITED) throw error
      const after = Number(response.headers.get("retry-after"))
      await sleep(
        Number.isFinite(after) && after > 0 ? Math.min(after * 1000, MAX_WAIT_MS) : 1000 * 2 ** limited,
        signal,
      )
    }
  }
  /**
   * A media's bytes: its URL from `GET /{media-id}`, then the download (with the token), at most
   * MAX_MEDIA_BYTES even when the server lies about the length.
   * @param {string} mediaId
   * @param {AbortSignal} signal
   */
  const media = async (mediaId, signal) => {
    if (!/^[\w.-]{1,100}$/.test(mediaId)) throw new Error("not a media id")
    const info = await call("GET", encodeURIComponent(mediaId), undefined, signal)
    if (Number(info.file_size ?? 0) > MAX_MEDIA_BYTES) throw new Error("file too large")
    if (typeof info.url !== "string") throw new Error("no media URL")
    const response = await request(info.url, { method: "GET" }, signal)
    if (!response.ok) throw new Error(`the media download answered ${response.status}`)
    if (Number(response.headers.get("content-length") ?? "0") > MAX_MEDIA_BYTES) throw new Error("file too large")
    const bytes = new Uint8Array(await response.arrayBuffer())
    if (bytes.byteLength > MAX_MEDIA_BYTES) throw new Error("file too large")
    return {
      bytes,
      mediaType: String(info.mime_type ?? "application/octet-stream").split(";")[0] ?? "application/octet-stream",
    }
  }
  return { call, media }
}

/** @typedef {ReturnType<typeof makeGraph>} Graph */

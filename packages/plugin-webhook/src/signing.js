// @ts-check
/**
 * Outbound requests signed like the inbound ones: `X-Aide-Signature: sha256=<hex HMAC-SHA256 of
 * the raw body>`, so one secret and one check serve both directions.
 */
import { createHmac } from "node:crypto"

export const SIGNATURE_HEADER = "x-aide-signature"
export const TIMESTAMP_HEADER = "x-aide-timestamp"

/** How long a callback may take before it counts as failed. */
export const CALLBACK_TIMEOUT_MS = 10_000

/**
 * @param {string} secret
 * @param {string} body
 */
export const sign = (secret, body) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

/**
 * POSTs `payload` as JSON to `url`, signed. The timestamp is in the body too (so it is signed):
 * a receiver that refuses old timestamps refuses replays. Rejects on a non-2xx answer or a
 * timeout, so that Aide can report or retry the delivery.
 * @param {string} url
 * @param {string} secret
 * @param {Record<string, unknown>} payload
 * @param {{ signal?: AbortSignal, timeoutMs?: number }} [options]
 */
export const postSigned = async (url, secret, payload, options = {}) => {
  const timestamp = Math.floor(Date.now() / 1000)
  const body = JSON.stringify({ ...payload, timestamp })
  const timeout = AbortSignal.timeout(options.timeoutMs ?? CALLBACK_TIMEOUT_MS)
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [SIGNATURE_HEADER]: sign(secret, body),
      [TIMESTAMP_HEADER]: String(timestamp),
      "user-agent": "aide-webhook-channel",
    },
    body,
    signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]),
    redirect: "error",
  }).catch((error) => {
    throw new Error(`webhook: the callback did not answer (${error instanceof Error ? error.message : error})`)
  })
  await response.body?.cancel()
  if (!response.ok) throw new Error(`webhook: the callback answered ${response.status}`)
}

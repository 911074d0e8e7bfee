import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import type { WebhookVerification } from "./ChannelContract.js"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** How far a signed timestamp may be from the server's clock, by default: 5 minutes. */
const defaultToleranceSeconds = 300

/** The bytes of an HMAC-SHA256 signature as sent, or undefined when it is not one. */
const signatureBytes = (text: string, encoding: "hex" | "base64"): Buffer | undefined => {
  if (encoding === "hex") return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : undefined
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined
  const bytes = Buffer.from(text, "base64")
  return bytes.length === 32 ? bytes : undefined
}

/**
 * The string a timestamped signature covers: the declared template (`{timestamp}` then `{body}`,
 * last; checked by the contract) filled in, or `<timestamp>.<body>`. The template is split, not
 * searched-and-replaced, so a body containing `{timestamp}` is signed as sent.
 */
const baseString = (template: string | undefined, timestamp: string, body: string) => {
  if (template === undefined) return `${timestamp}.${body}`
  const [before = "", after = ""] = template.slice(0, -"{body}".length).split("{timestamp}")
  return `${before}${timestamp}${after}${body}`
}

/**
 * What a check found. `replay` (HMAC only) is what the caller's replay cache keeps: the
 * signature's digest, until `until` (Unix seconds), past which the request is refused anyway
 * (timestamped) or the window ends (body-only signatures).
 */
export type Verdict =
  | { readonly ok: true; readonly replay?: { readonly key: string; readonly until: number } }
  | { readonly ok: false; readonly reason: "unauthorized" | "timestamp_required" | "stale_timestamp" }

const unauthorized: Verdict = { ok: false, reason: "unauthorized" }

/**
 * Whether a webhook request carries the proof `verification` asks for, in constant time in the
 * secret: `timingSafeEqual` over equal-length digests (a token's SHA-256 against the secret's;
 * a signature's 32 bytes against the HMAC). Lengths and the header's format are public and may
 * end the check early. No secret (undefined or empty) verifies nothing. With a declared
 * `timestamp`, the HMAC is of `<timestamp>.<body>` (or its `baseString`) and the timestamp must be within the
 * tolerance of `nowSeconds`; without one, a request that carries none is `timestamp_required`.
 *
 * @example
 * check({ kind: "token", header: "x-telegram-bot-api-secret-token", secret: { env: "T" } }, "s3cret", headers, body, now)
 */
export const check = (
  verification: WebhookVerification,
  secret: string | undefined,
  headers: Readonly<Record<string, string>>,
  body: string,
  nowSeconds: number,
): Verdict => {
  if (secret === undefined || secret === "") return unauthorized
  const sent = headers[verification.header.toLowerCase()]
  if (sent === undefined) return unauthorized
  if (verification.kind === "token") return timingSafeEqual(sha256(sent), sha256(secret)) ? { ok: true } : unauthorized
  const prefix = verification.prefix ?? ""
  if (!sent.startsWith(prefix)) return unauthorized
  const signature = signatureBytes(sent.slice(prefix.length).trim(), verification.encoding ?? "hex")
  if (signature === undefined) return unauthorized
  const stamp = verification.timestamp
  const tolerance = stamp?.toleranceSeconds ?? defaultToleranceSeconds
  const timestampText = stamp === undefined ? undefined : headers[stamp.header.toLowerCase()]?.trim()
  if (stamp !== undefined && (timestampText === undefined || !/^\d{1,12}$/.test(timestampText))) {
    return { ok: false, reason: "timestamp_required" }
  }
  const signed = timestampText === undefined ? body : baseString(stamp?.baseString, timestampText, body)
  const expected = createHmac("sha256", secret).update(signed, "utf8").digest()
  if (!timingSafeEqual(signature, expected)) return unauthorized
  // Checked after the signature, so only the secret's holder learns how the clocks differ.
  const timestamp = timestampText === undefined ? nowSeconds : Number(timestampText)
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: "stale_timestamp" }
  return { ok: true, replay: { key: expected.toString("hex"), until: timestamp + tolerance } }
}

/** `check` as a yes or no, on the current clock. */
export const verify = (
  verification: WebhookVerification,
  secret: string | undefined,
  headers: Readonly<Record<string, string>>,
  body: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean => check(verification, secret, headers, body, nowSeconds).ok

import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import type { WebhookVerification } from "./ChannelContract.js"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** The bytes of an HMAC-SHA256 signature as sent, or undefined when it is not one. */
const signatureBytes = (text: string, encoding: "hex" | "base64"): Buffer | undefined => {
  if (encoding === "hex") return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : undefined
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined
  const bytes = Buffer.from(text, "base64")
  return bytes.length === 32 ? bytes : undefined
}

/**
 * Whether a webhook request carries the proof `verification` asks for, in constant time in the
 * secret: `timingSafeEqual` over equal-length digests (a token's SHA-256 against the secret's;
 * a signature's 32 bytes against the body's HMAC). Lengths and the header's format are public
 * and may end the check early. No secret (undefined or empty) verifies nothing.
 *
 * @example
 * verify({ kind: "token", header: "x-telegram-bot-api-secret-token", secret: { env: "T" } }, "s3cret", headers, body)
 */
export const verify = (
  verification: WebhookVerification,
  secret: string | undefined,
  headers: Readonly<Record<string, string>>,
  body: string,
): boolean => {
  if (secret === undefined || secret === "") return false
  const sent = headers[verification.header.toLowerCase()]
  if (sent === undefined) return false
  if (verification.kind === "token") return timingSafeEqual(sha256(sent), sha256(secret))
  const prefix = verification.prefix ?? ""
  if (!sent.startsWith(prefix)) return false
  const signature = signatureBytes(sent.slice(prefix.length).trim(), verification.encoding ?? "hex")
  if (signature === undefined) return false
  return timingSafeEqual(signature, createHmac("sha256", secret).update(body, "utf8").digest())
}

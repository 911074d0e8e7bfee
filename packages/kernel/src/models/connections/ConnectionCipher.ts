import * as Crypto from "node:crypto"
import { Redacted } from "effect"

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from the server's secret, with its own `info`
 * label: the key that seals connections is never the one that signs access tokens, and it is
 * never stored. Each value gets a fresh 96-bit nonce; the provider id is the associated data,
 * so a sealed value copied to another provider's row does not open.
 */

const info = "aide/provider-connections/v1"
const version = "v1"

export interface ConnectionCipher {
  readonly seal: (provider: string, plaintext: string) => string
  /** `undefined` when the value was sealed under another secret, for another provider, or altered. */
  readonly open: (provider: string, sealed: string) => string | undefined
}

export const make = (secret: Redacted.Redacted<Uint8Array>): ConnectionCipher => {
  const key = Buffer.from(Crypto.hkdfSync("sha256", Redacted.value(secret), "", info, 32))

  const seal = (provider: string, plaintext: string) => {
    const nonce = Crypto.randomBytes(12)
    const cipher = Crypto.createCipheriv("aes-256-gcm", key, nonce)
    cipher.setAAD(Buffer.from(provider, "utf8"))
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
    return [version, nonce, body, cipher.getAuthTag()]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".")
  }

  const open = (provider: string, sealed: string) => {
    const [tag, nonce, body, authTag, ...rest] = sealed.split(".")
    if (tag !== version || nonce === undefined || body === undefined || authTag === undefined || rest.length > 0)
      return undefined
    // The whole 16-byte tag or nothing: GCM otherwise accepts a truncated tag (down to 4 bytes),
    // which someone able to write the table could forge far more cheaply.
    const tag16 = Buffer.from(authTag, "base64url")
    if (tag16.byteLength !== 16) return undefined
    try {
      const decipher = Crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"), {
        authTagLength: 16,
      })
      decipher.setAAD(Buffer.from(provider, "utf8"))
      decipher.setAuthTag(tag16)
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
    } catch {
      return undefined
    }
  }

  return { seal, open }
}

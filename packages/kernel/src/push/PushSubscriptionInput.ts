import * as Net from "node:net"
import { Effect } from "effect"
import { addressKind } from "../net/Address.js"
import { PushSubscriptionInvalid } from "./PushErrors.js"

/** The browser's `PushSubscription.toJSON()`, as posted: endpoint and keys. */
export interface PushSubscriptionInput {
  readonly endpoint: string
  readonly keys: { readonly p256dh: string; readonly auth: string }
}

/** Push service URLs are a few hundred characters (FCM's ~190, Mozilla's ~250). */
export const maxEndpointLength = 1024

const base64url = /^[A-Za-z0-9_-]+={0,2}$/

const decodedLength = (text: string) => Buffer.from(text.replace(/=+$/, ""), "base64url").byteLength

const invalid = (message: string) => Effect.fail(new PushSubscriptionInvalid({ message }))

/**
 * Checks a subscription before it is stored. The endpoint is a push service, reached over
 * https; an IP-literal host must be public (no pushing into the server's own network). Plain
 * http to a loopback address only when `allowHttpLoopback` (tests playing the push service).
 * `p256dh` is an uncompressed P-256 point (65 bytes), `auth` a 16-byte secret (RFC 8291).
 */
export const validate = (
  input: PushSubscriptionInput,
  allowHttpLoopback: boolean,
): Effect.Effect<PushSubscriptionInput, PushSubscriptionInvalid> => {
  if (input.endpoint.length > maxEndpointLength) return invalid(`endpoint: at most ${maxEndpointLength} characters`)
  let url: URL
  try {
    url = new URL(input.endpoint)
  } catch {
    return invalid("endpoint: not a URL")
  }
  if (url.username !== "" || url.password !== "") return invalid("endpoint: no credentials in the URL")
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const literal = Net.isIP(host) !== 0
  if (url.protocol === "http:") {
    const loopback = host === "localhost" || (literal && addressKind(host) === "loopback")
    if (!(allowHttpLoopback && loopback)) return invalid("endpoint: must be https")
  } else if (url.protocol !== "https:") {
    return invalid("endpoint: must be https")
  } else if (literal && addressKind(host) !== "public") {
    return invalid("endpoint: must be a public push service")
  }
  const { p256dh, auth } = input.keys
  if (!base64url.test(p256dh) || decodedLength(p256dh) !== 65 || Buffer.from(p256dh, "base64url")[0] !== 4) {
    return invalid("keys.p256dh: must be an uncompressed P-256 public key, base64url")
  }
  if (!base64url.test(auth) || decodedLength(auth) !== 16) return invalid("keys.auth: must be 16 bytes, base64url")
  return Effect.succeed(input)
}

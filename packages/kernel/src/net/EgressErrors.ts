import { Data } from "effect"
import { redactUrl } from "./UrlRedaction.js"

/**
 * Why an outbound request did not happen or was cut. They are thrown by a `fetch`-compatible
 * function (SDKs report their message), and carry the URL redacted: credentials and query
 * values never reach a log line through them.
 */

/** The target, or a redirect hop, is not allowed (scheme, host, address, redirect count). */
export class EgressRefused extends Data.TaggedError("EgressRefused")<{
  readonly url: string
  readonly reason: string
  readonly message: string
}> {
  constructor(url: string, reason: string) {
    const redacted = redactUrl(url)
    super({ url: redacted, reason, message: `Refused ${redacted}: ${reason}` })
  }
}

/** The exchange, body included, took longer than the broker's `timeoutMs`. */
export class EgressTimeout extends Data.TaggedError("EgressTimeout")<{
  readonly url: string
  readonly timeoutMs: number
  readonly message: string
}> {
  constructor(url: string, timeoutMs: number) {
    const redacted = redactUrl(url)
    super({ url: redacted, timeoutMs, message: `Timed out after ${timeoutMs} ms: ${redacted}` })
  }
}

/** The response body grew past `maxBodyBytes`; the connection was closed there. */
export class EgressBodyTooLarge extends Data.TaggedError("EgressBodyTooLarge")<{
  readonly url: string
  readonly maxBodyBytes: number
  readonly message: string
}> {
  constructor(url: string, maxBodyBytes: number) {
    const redacted = redactUrl(url)
    super({ url: redacted, maxBodyBytes, message: `Response body of ${redacted} exceeds ${maxBodyBytes} bytes` })
  }
}

export type EgressError = EgressRefused | EgressTimeout | EgressBodyTooLarge

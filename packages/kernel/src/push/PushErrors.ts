import { Schema } from "effect"

/** A subscription the server will not push to: not https (or loopback http in tests), or malformed keys. */
export class PushSubscriptionInvalid extends Schema.TaggedError<PushSubscriptionInvalid>()("PushSubscriptionInvalid", {
  message: Schema.String,
}) {}

/** `maxSubscriptions` browsers are subscribed already: unsubscribe one first. */
export class PushSubscriptionsFull extends Schema.TaggedError<PushSubscriptionsFull>()("PushSubscriptionsFull", {
  cap: Schema.Number,
}) {
  override get message() {
    return `at most ${this.cap} browsers can be subscribed; turn notifications off in one first`
  }
}

/** One failed push to one subscription; `retryable` for network failures, timeouts, 429 and 5xx. */
export class PushSendError extends Schema.TaggedError<PushSendError>()("PushSendError", {
  status: Schema.Number,
  retryable: Schema.Boolean,
  message: Schema.String,
}) {}

import { type Effect, Schema } from "effect"

/** What a channel is asked to deliver: an inbox message, without its inbox bookkeeping. */
export interface OutboundMessage {
  readonly subject: string
  /** Markdown. */
  readonly body: string
  /** The chat thread the message belongs to, when there is one. */
  readonly threadId: string | null
}

/** One failed delivery attempt of a channel (the inbox retries, then marks the message `failed`). */
export class ChannelDeliveryError extends Schema.TaggedError<ChannelDeliveryError>()("ChannelDeliveryError", {
  channel: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect),
}) {}

/**
 * An outbound messaging channel (Telegram, e-mail, a webhook…), provided by a plugin and
 * registered in the `ChannelRegistry`. The inbox delivers messages whose `destination` is the
 * channel's `key` through `send`.
 *
 * @example
 * const log: Channel = {
 *   key: "log",
 *   displayName: "Server log",
 *   supportsNotifications: true,
 *   send: (message) => Effect.log(message.subject),
 * }
 */
export interface Channel {
  /** Stable identifier: the inbox message's `destination` and the value listed by GET /api/schedule/destinations. */
  readonly key: string
  /** Human-readable name, for UIs. */
  readonly displayName: string
  /** Only channels that can push a message to the owner are offered as destinations. */
  readonly supportsNotifications: boolean
  /** One delivery attempt; retries and timeouts are the inbox's business. */
  readonly send: (message: OutboundMessage) => Effect.Effect<void, ChannelDeliveryError>
}

import { type Effect, Schema } from "effect"
import type { ChannelDeliveryError } from "../Channel.js"
import type {
  Notification,
  OutgoingMessage,
  WebhookRequest,
  WebhookResponse,
  WebhookVerification,
} from "./ChannelContract.js"

/**
 * A channel of a plugin as the gateway drives it, whatever hosts the plugin's code (the loader
 * wraps its IPC calls into these functions). A capability the channel lacks is null.
 */
export interface ChannelEndpoint {
  readonly pluginId: string
  readonly channelId: string
  readonly name: string
  readonly webhook: null | {
    readonly verification: WebhookVerification
    /** The secret's value now; undefined (not set) answers every request 401. */
    readonly secret: Effect.Effect<string | undefined>
    /** The `subscribe.verifyToken` secret's value now, when the verification declares one. */
    readonly verifyToken?: Effect.Effect<string | undefined>
    /** A verified request; null answers 200 `{ ok: true }`. */
    readonly handle: (request: WebhookRequest) => Effect.Effect<WebhookResponse | null, ChannelDeliveryError>
  }
  /** The realtime connection: runs until it ends; the gateway starts it again with backoff. */
  readonly realtime: null | Effect.Effect<void, ChannelDeliveryError>
  readonly send: null | ((message: OutgoingMessage) => Effect.Effect<void, ChannelDeliveryError>)
  readonly notify: null | ((notification: Notification) => Effect.Effect<void, ChannelDeliveryError>)
  /**
   * Who may talk through the channel (the plugin's `allowFrom`, `pairing` and `groups` settings).
   * Absent or null: the gateway lets every message through (an in-process channel that checks
   * its senders itself, or a signed webhook whose signature is the proof).
   */
  readonly access?: ChannelAccess | null
}

/** Owner-only access: the senders allowed, whether unknown ones may ask to pair, and group rooms. */
export interface ChannelAccess {
  /** Sender ids allowed to talk (besides those the owner approved by pairing). */
  readonly allowFrom: ReadonlyArray<string>
  /** An unknown sender in a direct conversation creates a pairing request the owner answers. */
  readonly pairing: boolean
  /** Group conversations are answered (only messages that mention the assistant, from allowed senders). */
  readonly groups: boolean
}

/** `<pluginId>:<channelId>`: the destination key and the gateway's name of an endpoint. */
export const channelKey = (pluginId: string, channelId: string) => `${pluginId}:${channelId}`

/** `/wh/<pluginId>/<channelId>`, the public route of an endpoint's webhook. */
export const webhookPath = (pluginId: string, channelId: string) => `/wh/${pluginId}/${channelId}`

/** Plugin and channel ids: safe in a key, a URL path segment and a log line as they are. */
export const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** No endpoint is registered under this key (the plugin is disabled, or never had that channel). */
export class ChannelNotFound extends Schema.TaggedError<ChannelNotFound>()("ChannelNotFound", {
  key: Schema.String,
}) {}

/** An inbound message the assistant cannot take (no text and no file, a malformed file…). */
export class InvalidInboundMessage extends Schema.TaggedError<InvalidInboundMessage>()("InvalidInboundMessage", {
  key: Schema.String,
  message: Schema.String,
}) {}

/** The conversation has too many messages waiting already; the channel may retry later. */
export class ConversationBusy extends Schema.TaggedError<ConversationBusy>()("ConversationBusy", {
  key: Schema.String,
  conversationId: Schema.String,
  waiting: Schema.Number,
}) {}

/** No pairing request of the plugin has that code (never made, expired, or already answered). */
export class PairingNotFound extends Schema.TaggedError<PairingNotFound>()("PairingNotFound", {
  pluginId: Schema.String,
  code: Schema.String,
}) {}

/** The approval id was not handed to this conversation of this channel. */
export class ApprovalNotFound extends Schema.TaggedError<ApprovalNotFound>()("ApprovalNotFound", {
  key: Schema.String,
  approvalId: Schema.String,
}) {}

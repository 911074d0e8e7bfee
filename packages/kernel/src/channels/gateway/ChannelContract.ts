import { Schema } from "effect"

/**
 * The shapes a channel plugin exchanges with Aide, mirrored from `@aide/plugin` (the kernel does
 * not depend on the authors' package): what crosses from a plugin process is checked against
 * these Schemas before the kernel trusts it. test/channel-contract.test.ts keeps the two in step.
 */

const bounded = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** Where a webhook's secret is read: one of the plugin's config fields, or a declared env var. */
export const SecretSource = Schema.Union(Schema.Struct({ config: bounded(200) }), Schema.Struct({ env: bounded(200) }))
export type SecretSource = typeof SecretSource.Type

/** How a webhook request is checked before the channel sees it (`@aide/plugin` `WebhookVerification`). */
export const WebhookVerification = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("token"), header: bounded(200), secret: SecretSource }),
  Schema.Struct({
    kind: Schema.Literal("hmac-sha256"),
    header: bounded(200),
    secret: SecretSource,
    encoding: Schema.optional(Schema.Literal("hex", "base64")),
    prefix: Schema.optional(bounded(100)),
    /**
     * The header carrying the request's Unix time (seconds). Declared, the signature covers
     * `<timestamp>.<body>` (or `baseString`) and requests outside `toleranceSeconds` (default 300) of the server's
     * clock are refused: with the replay cache, a captured request cannot be sent again.
     */
    timestamp: Schema.optional(
      Schema.Struct({
        header: bounded(200),
        toleranceSeconds: Schema.optional(Schema.Int.pipe(Schema.between(1, 86_400))),
        /**
         * The signed string, `{timestamp}` then `{body}` (last) with fixed text around them;
         * default `{timestamp}.{body}`. Slack signs `v0:{timestamp}:{body}`.
         */
        baseString: Schema.optional(bounded(100).pipe(Schema.pattern(/^[^{}]*\{timestamp\}[^{}]*\{body\}$/))),
      }),
    ),
    /**
     * The subscription handshake by GET (Meta's WhatsApp / Messenger webhooks:
     * `?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`): Aide answers the challenge itself
     * when the token equals this secret, 403 otherwise; the channel never sees GETs.
     */
    subscribe: Schema.optional(Schema.Struct({ verifyToken: SecretSource })),
  }),
).annotations({ identifier: "WebhookVerification" })
export type WebhookVerification = typeof WebhookVerification.Type

export const InboundFile = Schema.Struct({
  mediaType: Schema.String,
  /** `data:<mediaType>;base64,…` */
  url: Schema.String,
  filename: Schema.optional(Schema.String),
})

/** Who wrote a message or pressed a button: the platform's stable id (user id, address, E.164 number). */
export const Sender = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(320)),
  name: Schema.optional(bounded(200)),
})
export type Sender = typeof Sender.Type

/** A message that reached a channel and is meant for the assistant. */
export const InboundMessage = Schema.Struct({
  conversationId: Schema.String.pipe(Schema.minLength(1)),
  text: Schema.String,
  files: Schema.optional(Schema.Array(InboundFile)),
  sender: Schema.optional(Sender),
  /** A group room or channel: answered only with the channel's `groups` on, and then only when `mentioned`. */
  group: Schema.optional(Schema.Boolean),
  mentioned: Schema.optional(Schema.Boolean),
}).annotations({ identifier: "InboundMessage" })
export type InboundMessage = typeof InboundMessage.Type

/** A tool call waiting for the owner; `approvalId` is opaque to the channel. */
export interface PendingApproval {
  readonly approvalId: string
  readonly toolName: string
  readonly input: unknown
}

/** The assistant's answer into a conversation. */
export interface OutgoingMessage {
  readonly conversationId: string
  /** Markdown. */
  readonly text: string
  readonly approvals: ReadonlyArray<PendingApproval>
}

/** What Aide pushes to the owner unprompted (an inbox message whose destination is the channel). */
export interface Notification {
  readonly subject: string
  readonly body: string
  readonly threadId: string | null
}

/** A verified webhook request as the channel sees it (header names lower-case, body raw text). */
export interface WebhookRequest {
  readonly method: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export const WebhookResponse = Schema.Struct({
  status: Schema.optional(Schema.Int.pipe(Schema.between(200, 599))),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  body: Schema.optional(Schema.String),
})
export type WebhookResponse = typeof WebhookResponse.Type

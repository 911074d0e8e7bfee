import { Context, type Effect, Schema } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** The `destination` of a message kept in the web inbox only. */
export const webDestination = "web"

/** How GET /api/schedule/destinations (and a task's `destination`) names the web inbox. */
export const webInboxLabel = "Web Inbox"

export const InboxStatus = Schema.Literal("pending", "sent", "failed")
export type InboxStatus = typeof InboxStatus.Type

/** SPEC "Inbox message". */
export const InboxMessage = Schema.Struct({
  id: Schema.String,
  subject: Schema.String,
  body: Schema.String,
  threadId: Schema.NullOr(Schema.String),
  destination: Schema.String,
  status: InboxStatus,
  read: Schema.Boolean,
  createdAt: Schema.Date,
  archivedAt: Schema.NullOr(Schema.Date),
}).annotations({ identifier: "InboxMessage" })
export type InboxMessage = typeof InboxMessage.Type

export interface NewInboxMessage {
  readonly subject: string
  /** Markdown. */
  readonly body: string
  readonly threadId?: string | null | undefined
  /** `"web"` (`webDestination`) or a channel key. */
  readonly destination: string
}

export interface InboxPatch {
  readonly read?: boolean | undefined
  /** true archives (keeping the first `archivedAt`), false makes the message active again. */
  readonly archived?: boolean | undefined
}

export class InboxMessageNotFound extends Schema.TaggedError<InboxMessageNotFound>()("InboxMessageNotFound", {
  messageId: Schema.String,
}) {}

/** A destination label that is neither `Web Inbox` nor a channel able to notify. */
export class UnknownDestination extends Schema.TaggedError<UnknownDestination>()("UnknownDestination", {
  destination: Schema.String,
}) {}

/**
 * Messages for the owner, from scheduled tasks and from the agent. Every message is kept in the
 * web inbox; one addressed to a channel is also delivered there, in the background, with
 * retries (`pending` → `sent` or `failed`).
 *
 * Contract for an implementation (`Kernel.layer({ inboxLayer })`): `create` returns once the message
 * is stored (delivery, if any, goes on in the background and may fail without failing `create`);
 * `destinations` lists the channels of `ChannelRegistry` that take notifications, and
 * `resolveDestination` accepts exactly those labels; unknown ids are `InboxMessageNotFound`.
 */
export class Inbox extends Context.Tag("@aide/kernel/Inbox")<
  Inbox,
  {
    /** Stores the message: `sent` for the web inbox, else `pending` with its delivery started. */
    readonly create: (message: NewInboxMessage) => Effect.Effect<InboxMessage, StorageError>
    /** Active (default) or archived messages, newest first. */
    readonly list: (options?: {
      readonly archived?: boolean
    }) => Effect.Effect<ReadonlyArray<InboxMessage>, StorageError>
    readonly get: (id: string) => Effect.Effect<InboxMessage, InboxMessageNotFound | StorageError>
    readonly update: (id: string, patch: InboxPatch) => Effect.Effect<InboxMessage, InboxMessageNotFound | StorageError>
    /** Deletes the message for good, stopping its delivery if one is running. */
    readonly delete: (id: string) => Effect.Effect<void, InboxMessageNotFound | StorageError>
    /** `Web Inbox` and the keys of the registered channels that support notifications. */
    readonly destinations: Effect.Effect<ReadonlyArray<string>>
    /** A label of `destinations` as a message `destination`: `Web Inbox` → `web`, a channel key unchanged. */
    readonly resolveDestination: (label: string) => Effect.Effect<string, UnknownDestination>
  }
>() {}

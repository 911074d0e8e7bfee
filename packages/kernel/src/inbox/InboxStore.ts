import { Context, type Effect, type Option } from "effect"
import type { StorageError } from "../storage/StorageError.js"
import type { InboxMessage, InboxPatch, InboxStatus } from "./Inbox.js"

/** A message as the inbox stores it: ids, status and time are decided by the caller. */
export interface StoredInboxMessage {
  readonly id: string
  readonly subject: string
  readonly body: string
  readonly threadId: string | null
  readonly destination: string
  readonly status: InboxStatus
  readonly createdAt: Date
}

/**
 * Where the inbox keeps its messages and the state of their channel deliveries. A delivery is
 * owned through a lease (`owner`, `until`): `claim` and `renew` are conditional, so with several
 * replicas on one store exactly one of them delivers a message. Swap it to keep the inbox
 * somewhere else; the delivery logic (`DeliveringInbox`) stays the same.
 */
export class InboxStore extends Context.Tag("@aide/kernel/InboxStore")<
  InboxStore,
  {
    readonly insert: (message: StoredInboxMessage) => Effect.Effect<InboxMessage, StorageError>
    /** Active or archived messages, newest first. */
    readonly list: (archived: boolean) => Effect.Effect<ReadonlyArray<InboxMessage>, StorageError>
    readonly get: (id: string) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /** Applies the patch (`archived: true` keeps an earlier `archivedAt`); None when the message is gone. */
    readonly update: (
      id: string,
      patch: InboxPatch,
      at: Date,
    ) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /** false when there was no such message. */
    readonly remove: (id: string) => Effect.Effect<boolean, StorageError>
    /** Takes the lease of a `pending` message whose lease is free or ran out at `now`. */
    readonly claim: (
      id: string,
      owner: string,
      now: Date,
      until: Date,
    ) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /** Extends the lease and counts one more attempt; false when the lease was lost or the message is gone. */
    readonly renew: (id: string, owner: string, until: Date) => Effect.Effect<boolean, StorageError>
    /** Records the outcome and frees the lease (only the lease owner can). */
    readonly finish: (
      id: string,
      owner: string,
      status: "sent" | "failed",
      lastError: string | null,
    ) => Effect.Effect<void, StorageError>
    /** Frees the lease without an outcome (the delivery was interrupted). */
    readonly release: (id: string, owner: string) => Effect.Effect<void, StorageError>
    /** Ids of `pending` messages without a live lease at `now`, oldest first. */
    readonly pendingUnleased: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<string>, StorageError>
  }
>() {}

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
 *
 * The contract (`inboxStoreContract` of `@aide/testing/effect` checks each rule): the store reads
 * no clock (every time is given); of concurrent `claim`s of one message exactly one wins.
 */
export class InboxStore extends Context.Tag("@aide/kernel/InboxStore")<
  InboxStore,
  {
    readonly insert: (message: StoredInboxMessage) => Effect.Effect<InboxMessage, StorageError>
    /**
     * Active (`archived: false`) or archived messages, newest `createdAt` first; equal times:
     * the later insert first.
     */
    readonly list: (archived: boolean) => Effect.Effect<ReadonlyArray<InboxMessage>, StorageError>
    /** None for an unknown or removed message. */
    readonly get: (id: string) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /**
     * Applies the patch and answers the message: `archived: true` sets `archivedAt` to `at`, or
     * keeps an earlier `archivedAt` (archiving again keeps the first time). None when the
     * message is gone.
     */
    readonly update: (
      id: string,
      patch: InboxPatch,
      at: Date,
    ) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /** Deletes the message; false when there was no such message (e.g. removed already). */
    readonly remove: (id: string) => Effect.Effect<boolean, StorageError>
    /**
     * Takes the lease (held by `owner` until `until`) of a `pending` message whose lease is free
     * or ran out at `now` (`until <= now`: another owner may take it then). None for a message
     * not pending (sent, failed) or leased; of concurrent claims exactly one answers the message.
     */
    readonly claim: (
      id: string,
      owner: string,
      now: Date,
      until: Date,
    ) => Effect.Effect<Option.Option<InboxMessage>, StorageError>
    /**
     * Extends the lease and counts one more attempt; false when the lease was lost (another
     * owner claimed it after it ran out) or the message is gone.
     */
    readonly renew: (id: string, owner: string, until: Date) => Effect.Effect<boolean, StorageError>
    /**
     * Records the outcome (the status) and frees the lease; only the current lease owner can:
     * a call by an owner that lost the lease changes nothing (the message stays `pending`).
     */
    readonly finish: (
      id: string,
      owner: string,
      status: "sent" | "failed",
      lastError: string | null,
    ) => Effect.Effect<void, StorageError>
    /** Frees the lease without an outcome (the delivery was interrupted): the message is claimable at once. */
    readonly release: (id: string, owner: string) => Effect.Effect<void, StorageError>
    /** Ids of `pending` messages without a live lease at `now`, oldest first, at most `limit`. */
    readonly pendingUnleased: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<string>, StorageError>
  }
>() {}

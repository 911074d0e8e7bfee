import { Context, type Effect, Schema } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/**
 * A message as the AI SDK's UI message format has it (`UIMessage` of `ai`): stored and returned
 * unchanged, so a client's `useChat` history round-trips. `parts` are kept as JSON.
 */
export const StoredMessage = Schema.Struct({
  id: Schema.String,
  role: Schema.Literal("user", "assistant", "system"),
  parts: Schema.Array(Schema.Unknown),
  metadata: Schema.optional(Schema.Unknown),
}).annotations({ identifier: "Message" })
export type StoredMessage = typeof StoredMessage.Type

/** A thread row: a root conversation, or a branch forked from another thread at a message. */
export interface ThreadRecord {
  readonly id: string
  /** The root of the family; equal to `id` for a root thread. */
  readonly rootId: string
  /** The thread this one was forked from; null for a root. */
  readonly parentId: string | null
  /** The message of the parent the fork was made at; null for a root. */
  readonly forkMessageId: string | null
  /** Index of that message in the parent's message list; null for a root. */
  readonly forkPointIndex: number | null
  readonly title: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const BranchRef = Schema.Struct({ id: Schema.String, title: Schema.optional(Schema.String) })
export type BranchRef = typeof BranchRef.Type

/** SPEC "Thread summary": one entry per root thread. */
export const ThreadSummary = Schema.Struct({
  id: Schema.String,
  title: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  activeThreadId: Schema.String,
  threadIds: Schema.Array(Schema.String),
}).annotations({ identifier: "ThreadSummary" })
export type ThreadSummary = typeof ThreadSummary.Type

export const ForkInfo = Schema.Struct({
  sourceThreadId: Schema.String,
  forkPointIndex: Schema.Number,
  siblings: Schema.Array(BranchRef),
}).annotations({ identifier: "ForkInfo" })

/** SPEC "Thread detail". */
export const ThreadDetail = Schema.Struct({
  thread: Schema.Struct({
    id: Schema.String,
    title: Schema.NullOr(Schema.String),
    createdAt: Schema.Date,
    updatedAt: Schema.Date,
  }),
  messages: Schema.Array(StoredMessage),
  forks: Schema.Record({ key: Schema.String, value: Schema.Array(BranchRef) }),
  forkInfo: Schema.NullOr(ForkInfo),
}).annotations({ identifier: "ThreadDetail" })
export type ThreadDetail = typeof ThreadDetail.Type

export interface ThreadPage {
  readonly threads: ReadonlyArray<ThreadSummary>
  /** Number of root threads. */
  readonly total: number
  readonly page: number
  /** Page size, or false when all threads were asked for. */
  readonly perPage: number | false
  readonly hasMore: boolean
}

/** A thread's newest messages (`Threads.tail`): in order, and how many come before them. */
export interface ThreadTail {
  readonly messages: ReadonlyArray<StoredMessage>
  /** How many messages of the thread come before `messages` (0: `messages` is the whole thread). */
  readonly before: number
}

/**
 * A thread as a run reads it (`ThreadWindow.read`): its newest messages and how many come before
 * them, with reads of more for a reader that needs them (memory whose observations do not cover
 * the older ones; a membership test). Each read is of the thread as it is when read.
 */
export interface ThreadWindow extends ThreadTail {
  /** The thread's last `last` messages (as `Threads.tail`). */
  readonly widen: (last: number) => Effect.Effect<ThreadTail, StorageError>
  /** Every message of the thread (`messages` itself when `before` is 0). */
  readonly all: Effect.Effect<ReadonlyArray<StoredMessage>, StorageError>
  /** Which of `messageIds` are messages of the thread (as `Threads.holding`). */
  readonly holding: (messageIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, StorageError>
}

export class ThreadNotFound extends Schema.TaggedError<ThreadNotFound>()("ThreadNotFound", {
  threadId: Schema.String,
}) {}

export class MessageNotFound extends Schema.TaggedError<MessageNotFound>()("MessageNotFound", {
  threadId: Schema.String,
  messageId: Schema.String,
}) {}

/**
 * Conversation threads and their messages, with branches (forks). A thread family is a root and
 * every branch forked from it or from its branches.
 *
 * The contract (`threadsContract` of `@aide/testing/effect` checks each rule):
 * - Times (`createdAt`, `updatedAt`) are read from Effect's `Clock` (never `Date.now()`), so a
 *   test's `TestClock` moves them.
 * - An unknown thread fails with `ThreadNotFound` carrying its `threadId`; a failing call
 *   changes nothing.
 */
export class Threads extends Context.Tag("@aide/kernel/Threads")<
  Threads,
  {
    /**
     * The thread, created as an empty root thread with this id when it does not exist: `created:
     * true` and `{ id, rootId: id, parentId: null, forkMessageId: null, forkPointIndex: null,
     * title: null }` with both times now. Afterwards `created: false` and the record unchanged
     * (times not touched).
     */
    readonly ensure: (
      id: string,
    ) => Effect.Effect<{ readonly thread: ThreadRecord; readonly created: boolean }, StorageError>
    readonly get: (id: string) => Effect.Effect<ThreadRecord, ThreadNotFound | StorageError>
    /** The thread's messages in the order they were first saved. */
    readonly messages: (id: string) => Effect.Effect<ReadonlyArray<StoredMessage>, ThreadNotFound | StorageError>
    /**
     * The thread's last `last` messages (all of them when it has fewer), in the order of
     * `messages`, and how many come before them: what a run reads instead of the whole thread,
     * so a long thread's history read does not grow with it. `last` is at least 1.
     */
    readonly tail: (id: string, last: number) => Effect.Effect<ThreadTail, ThreadNotFound | StorageError>
    /**
     * Which of `messageIds` are messages of the thread (a subset of them; empty for none): a
     * membership test that reads no message.
     */
    readonly holding: (
      id: string,
      messageIds: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlySet<string>, ThreadNotFound | StorageError>
    /**
     * Inserts the message at the end of the thread, or replaces it in place when a message with
     * this id is already in the thread (an assistant message saved again as it grows). Sets
     * the thread's `updatedAt` to now (`createdAt` unchanged). The message comes back exactly
     * as saved (`toStrictEqual`): any `parts`, `metadata` kept as given (null included) and
     * absent when not given. Ids are per thread: the same id may be in another thread.
     */
    readonly saveMessage: (
      threadId: string,
      message: StoredMessage,
    ) => Effect.Effect<void, ThreadNotFound | StorageError>
    /**
     * Sets the title (automatic titling or a rename); null clears it. Does not change
     * `updatedAt`. Answers the updated record.
     */
    readonly setTitle: (id: string, title: string | null) => Effect.Effect<ThreadRecord, ThreadNotFound | StorageError>
    /**
     * One summary per root (branches are not rows), most recently updated family first (ties: the
     * greater root id first, as both kernel stores order them). A family's `updatedAt` is the
     * latest `updatedAt` of its threads still there (a delete can lower it); its `title` and
     * `createdAt` are the root's; `activeThreadId` is its most recently updated thread (ties: the
     * one made last, so a fresh fork is); `threadIds` are the root then its branches, in the order
     * they were made. Pages are 0-based: page `p` holds summaries `p * perPage` to `p * perPage +
     * perPage - 1`; `total` counts roots (not branches); `hasMore` is whether a later page has any;
     * a page past the end is empty with the same `total`. `perPage: false` lists every root on page
     * 0 (`perPage: false`, `hasMore: false`). An empty store answers `{ threads: [], total: 0,
     * page, perPage, hasMore: false }`.
     */
    readonly list: (options: {
      readonly page: number
      readonly perPage: number | false
    }) => Effect.Effect<ThreadPage, StorageError>
    /**
     * The thread (`id`, `title`, times), its messages, `forks`: its direct branches keyed by
     * the message id they were forked at, each list in the order made, `{ id }` plus `title`
     * only when set (no key for a message without branches, `{}` when none); and `forkInfo`,
     * null for a root, else `{ sourceThreadId: parentId, forkPointIndex, siblings }` where
     * siblings are the other branches of the same parent at the same message, in the order made.
     */
    readonly detail: (id: string) => Effect.Effect<ThreadDetail, ThreadNotFound | StorageError>
    /**
     * Clones the messages before `messageId` (same ids and content) into a new branch of `id`:
     * a fresh id, `rootId` the family's root, `parentId: id`, `forkMessageId: messageId`,
     * `forkPointIndex` that message's index (= `clonedMessageCount`; forking at the first
     * message makes an empty branch), `title: null`, both times now. The source thread (its
     * messages and `updatedAt`) is unchanged, and the branch then grows on its own: saving into
     * it never touches the source. `MessageNotFound` when `messageId` is not in that thread
     * (even if another thread has it); nothing is created on failure.
     */
    readonly fork: (
      id: string,
      messageId: string,
    ) => Effect.Effect<
      { readonly thread: ThreadRecord; readonly clonedMessageCount: number },
      ThreadNotFound | MessageNotFound | StorageError
    >
    /**
     * Deletes the thread, its messages and every branch forked from it (recursively), nothing
     * else: deleting a root removes its family; the family's time becomes that of what is left.
     */
    readonly delete: (id: string) => Effect.Effect<void, ThreadNotFound | StorageError>
  }
>() {}

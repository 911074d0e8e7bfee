import { Context, Effect, Layer, Option } from "effect"
import type { StorageError } from "../../storage/StorageError.js"

/** One conversation of one channel: `conversationId` is the platform's (a Telegram chat id…). */
export interface ConversationRef {
  readonly pluginId: string
  readonly channelId: string
  readonly conversationId: string
}

/** An approval id handed to a channel, and the tool call it stands for. */
export interface ChannelApproval {
  readonly approvalId: string
  readonly conversation: ConversationRef
  readonly threadId: string
  readonly runId: string
  readonly toolCallId: string
}

/**
 * Where the channel gateway keeps which Aide thread each channel conversation talks in, and the
 * approval ids it handed out. Both survive restarts. `bind` is conditional so that two
 * replicas starting the same conversation at once agree on one thread.
 * `channelConversationsContract` of `@aide/testing/effect` checks the rules stated on each method.
 */
export class ChannelConversations extends Context.Tag("@aide/kernel/ChannelConversations")<
  ChannelConversations,
  {
    /**
     * The thread the conversation is bound to; none before its first `bind`. A conversation is
     * the whole `(pluginId, channelId, conversationId)`: the same id in another channel is apart.
     */
    readonly threadOf: (conversation: ConversationRef) => Effect.Effect<Option.Option<string>, StorageError>
    /**
     * Binds the conversation to `threadId` when it is still bound to `replacing` (null: not bound
     * at all) and returns the thread it is bound to afterwards: `threadId`, or the one a
     * concurrent caller bound first. So the first binding wins (a second `replacing: null`
     * answers the first thread), and replacing a thread seen earlier works once (a second
     * replacement of that same thread answers the one that replaced it).
     */
    readonly bind: (
      conversation: ConversationRef,
      threadId: string,
      replacing: string | null,
      at: Date,
    ) => Effect.Effect<string, StorageError>
    /** Stores each approval under its `approvalId`, read back unchanged by `approval`. */
    readonly saveApprovals: (approvals: ReadonlyArray<ChannelApproval>, at: Date) => Effect.Effect<void, StorageError>
    /** The saved approval (conversation, thread, run, tool call); none for an unknown id. */
    readonly approval: (approvalId: string) => Effect.Effect<Option.Option<ChannelApproval>, StorageError>
  }
>() {}

const keyOf = (ref: ConversationRef) => JSON.stringify([ref.pluginId, ref.channelId, ref.conversationId])

/** In this process's memory: for tests and embedders keeping no channel state across restarts. */
export const makeMemory = Effect.sync(() => {
  const threads = new Map<string, string>()
  const approvals = new Map<string, ChannelApproval>()
  return ChannelConversations.of({
    threadOf: (ref) => Effect.sync(() => Option.fromNullable(threads.get(keyOf(ref)))),
    bind: (ref, threadId, replacing) =>
      Effect.sync(() => {
        const current = threads.get(keyOf(ref)) ?? null
        if (current === replacing) threads.set(keyOf(ref), threadId)
        return threads.get(keyOf(ref))!
      }),
    saveApprovals: (list) =>
      Effect.sync(() => {
        for (const approval of list) approvals.set(approval.approvalId, approval)
      }),
    approval: (id) => Effect.sync(() => Option.fromNullable(approvals.get(id))),
  })
})

export const layerMemory: Layer.Layer<ChannelConversations> = Layer.effect(ChannelConversations, makeMemory)

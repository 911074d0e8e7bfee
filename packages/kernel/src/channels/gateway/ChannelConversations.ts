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

/** An unknown sender's request to talk, waiting for the owner until `expiresAt`. */
export interface PairingRequest {
  readonly pluginId: string
  readonly channelId: string
  /** Short, one-time, unique among the plugin's requests: how the owner names it. */
  readonly code: string
  readonly senderId: string
  readonly senderName: string | null
  readonly createdAt: Date
  readonly expiresAt: Date
}

/** A sender the owner let in by approving their pairing request. */
export interface ApprovedSender {
  readonly pluginId: string
  readonly channelId: string
  readonly senderId: string
  readonly senderName: string | null
  readonly approvedAt: Date
}

/** `requestPairing`'s outcome: stored, one of that sender's already waiting, or the channel's bound reached. */
export type PairingOutcome = "created" | "pending" | "full"

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
    /** Whether the owner approved the sender on that channel (and did not remove them since). */
    readonly isApproved: (pluginId: string, channelId: string, senderId: string) => Effect.Effect<boolean, StorageError>
    /**
     * Stores the request unless the sender has one waiting on that channel ("pending") or the
     * channel has `maxPending` unexpired ones ("full"); requests expired at `request.createdAt`
     * are forgotten first. One sender has at most one request per channel.
     */
    readonly requestPairing: (
      request: PairingRequest,
      maxPending: number,
    ) => Effect.Effect<PairingOutcome, StorageError>
    /** The plugin's requests not expired at `now`, oldest first. */
    readonly pairings: (pluginId: string, now: Date) => Effect.Effect<ReadonlyArray<PairingRequest>, StorageError>
    /**
     * Takes the request away (once: a second call finds nothing) and, when `approved`, adds its
     * sender to the channel's approved senders. None when no unexpired request has that code.
     */
    readonly decidePairing: (
      pluginId: string,
      code: string,
      approved: boolean,
      now: Date,
    ) => Effect.Effect<Option.Option<PairingRequest>, StorageError>
    /** The plugin's approved senders, oldest first. */
    readonly approvedSenders: (pluginId: string) => Effect.Effect<ReadonlyArray<ApprovedSender>, StorageError>
    /** Forgets an approved sender; false when there was none. */
    readonly removeSender: (
      pluginId: string,
      channelId: string,
      senderId: string,
    ) => Effect.Effect<boolean, StorageError>
  }
>() {}

const keyOf = (ref: ConversationRef) => JSON.stringify([ref.pluginId, ref.channelId, ref.conversationId])

/** In this process's memory: for tests and embedders keeping no channel state across restarts. */
export const makeMemory = Effect.sync(() => {
  const threads = new Map<string, string>()
  const approvals = new Map<string, ChannelApproval>()
  const requests: Array<PairingRequest> = []
  const senders = new Map<string, ApprovedSender>()
  const senderKey = (pluginId: string, channelId: string, senderId: string) =>
    JSON.stringify([pluginId, channelId, senderId])
  const forgetExpired = (now: Date) => {
    for (let index = requests.length - 1; index >= 0; index--) {
      if (requests[index]!.expiresAt.getTime() <= now.getTime()) requests.splice(index, 1)
    }
  }
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
    isApproved: (pluginId, channelId, senderId) =>
      Effect.sync(() => senders.has(senderKey(pluginId, channelId, senderId))),
    requestPairing: (request, maxPending) =>
      Effect.sync(() => {
        forgetExpired(request.createdAt)
        const channel = requests.filter((r) => r.pluginId === request.pluginId && r.channelId === request.channelId)
        if (channel.some((r) => r.senderId === request.senderId)) return "pending" as const
        if (channel.length >= maxPending) return "full" as const
        requests.push(request)
        return "created" as const
      }),
    pairings: (pluginId, now) =>
      Effect.sync(() => requests.filter((r) => r.pluginId === pluginId && r.expiresAt.getTime() > now.getTime())),
    decidePairing: (pluginId, code, approved, now) =>
      Effect.sync(() => {
        forgetExpired(now)
        const index = requests.findIndex((r) => r.pluginId === pluginId && r.code === code)
        if (index < 0) return Option.none()
        const [request] = requests.splice(index, 1)
        const { channelId, senderId, senderName } = request!
        const key = senderKey(pluginId, channelId, senderId)
        if (approved && !senders.has(key))
          senders.set(key, { pluginId, channelId, senderId, senderName, approvedAt: now })
        return Option.some(request!)
      }),
    approvedSenders: (pluginId) =>
      Effect.sync(() => Array.from(senders.values()).filter((sender) => sender.pluginId === pluginId)),
    removeSender: (pluginId, channelId, senderId) =>
      Effect.sync(() => senders.delete(senderKey(pluginId, channelId, senderId))),
  })
})

export const layerMemory: Layer.Layer<ChannelConversations> = Layer.effect(ChannelConversations, makeMemory)

import { Clock, Context, Effect, Layer, Option, Schema, type Scope } from "effect"
import type { Chat } from "../../chat/Chat.js"
import { dataUrlProblem } from "../../chat/DataUrl.js"
import type { Ids } from "../../ids/Ids.js"
import { RateLimiter } from "../../ratelimit/RateLimiter.js"
import * as Leases from "../../replicas/Leases.js"
import type { StorageError } from "../../storage/StorageError.js"
import type { Threads } from "../../threads/Threads.js"
import { ChannelRegistry } from "../ChannelRegistry.js"
import { InboundMessage, type Sender } from "./ChannelContract.js"
import { type ApprovedSender, ChannelConversations, type PairingRequest } from "./ChannelConversations.js"
import {
  ApprovalNotFound,
  type ChannelEndpoint,
  ChannelNotFound,
  ConversationBusy,
  channelKey,
  InvalidInboundMessage,
  idPattern,
  PairingNotFound,
  webhookPath,
} from "./ChannelEndpoint.js"
import * as Access from "./internal/Access.js"
import * as ConversationQueues from "./internal/ConversationQueues.js"
import * as ConversationRuns from "./internal/ConversationRuns.js"
import { PairingNotifier } from "./PairingNotifier.js"
import { keepUp, type RealtimeOptions, type ConnectionStatus as RealtimeStatus } from "./Realtime.js"
import { WebhookReplays } from "./WebhookReplays.js"
import * as Webhooks from "./Webhooks.js"

/** Where an endpoint's realtime connection stands (`gateway.endpoints`, `GET /api/plugins`). */
export type ConnectionStatus = RealtimeStatus
/** An endpoint as listed (e.g. for GET /api/plugins: `webhookPath`, `realtime`). */
export interface EndpointInfo {
  readonly key: string
  readonly pluginId: string
  readonly channelId: string
  readonly name: string
  readonly webhookPath: string | null
  readonly realtime: boolean
  /** The realtime connection's state and last error (null without realtime). */
  readonly connection: ConnectionStatus | null
}

export interface ApprovalAnswer {
  readonly conversationId: string
  readonly approvalId: string
  readonly approved: boolean
  /** Who pressed the button; given, it must be allowed to talk (else `ApprovalNotFound`). */
  readonly sender?: Sender | undefined
}

/** A plugin's pairing requests waiting for the owner, and the senders the owner approved. */
export interface PluginPairings {
  readonly pairings: ReadonlyArray<PairingRequest>
  readonly senders: ReadonlyArray<ApprovedSender>
}

/**
 * Channel plugins' endpoints, driven: the loader registers each channel of a running plugin,
 * the gateway keeps its realtime connection up, offers it as a notification destination, serves
 * its webhook (`webhook`, behind `POST /wh/:pluginId/:channelId`), and turns what the channel
 * receives into chat runs in one thread per conversation, the answers sent back through it.
 */
export class ChannelGateway extends Context.Tag("@aide/kernel/ChannelGateway")<
  ChannelGateway,
  {
    /** Registers the endpoint (key `<pluginId>:<channelId>`) for the lifetime of the scope; a taken key is a defect. */
    readonly register: (endpoint: ChannelEndpoint) => Effect.Effect<void, never, Scope.Scope>
    readonly endpoints: Effect.Effect<ReadonlyArray<EndpointInfo>>
    /**
     * Accepts a message of a conversation: it is answered in a background fiber, after the
     * conversation's earlier messages, and the answer goes out through the endpoint's `send`.
     */
    readonly receive: (
      key: string,
      message: InboundMessage,
    ) => Effect.Effect<void, ChannelNotFound | InvalidInboundMessage | ConversationBusy>
    /** The owner's answer to an approval the channel was sent; the continuation comes like an answer. */
    readonly answerApproval: (
      key: string,
      answer: ApprovalAnswer,
    ) => Effect.Effect<void, ChannelNotFound | ApprovalNotFound | ConversationBusy | StorageError>
    /** The plugin's unexpired pairing requests and approved senders (for the owner's console). */
    readonly pairings: (pluginId: string) => Effect.Effect<PluginPairings, StorageError>
    /** The owner's answer to a pairing request: approved, its sender may talk from then on. */
    readonly decidePairing: (
      pluginId: string,
      code: string,
      approved: boolean,
    ) => Effect.Effect<PairingRequest, PairingNotFound | StorageError>
    /** Takes an approved sender off the channel's list; false when it was not on it. */
    readonly removeSender: (
      pluginId: string,
      channelId: string,
      senderId: string,
    ) => Effect.Effect<boolean, StorageError>
    /** A request to `POST /wh/<pluginId>/<channelId>`: limited, verified, handed to the channel. */
    readonly webhook: (
      pluginId: string,
      channelId: string,
      request: Webhooks.IncomingWebhook,
    ) => Effect.Effect<Webhooks.WebhookAnswer>
    /** A `GET /wh/<pluginId>/<channelId>`: the subscription handshake of `subscribe` verifications. */
    readonly webhookChallenge: Webhooks.ChallengeRoute
  }
>() {}

export interface ChannelGatewayOptions {
  readonly realtime?: RealtimeOptions
  /** Messages and approvals waiting per conversation (the running one included); default 16. */
  readonly queueCapacity?: number
  readonly webhooks?: Webhooks.WebhookOptions
  /** Pairing requests' lifetime and bound, and how often an unknown sender is logged. */
  readonly access?: Access.AccessOptions
}

export const make = (options: ChannelGatewayOptions = {}) =>
  Effect.gen(function* () {
    const registry = yield* ChannelRegistry
    const conversations = yield* ChannelConversations
    const runs = yield* ConversationRuns.make
    const queues = yield* ConversationQueues.make(options.queueCapacity ?? 16)
    const endpoints = new Map<string, ChannelEndpoint>()
    const webhooks = Webhooks.make(yield* RateLimiter, yield* WebhookReplays, options.webhooks)
    // Taken from the gateway's own context: `register` runs in its caller's (a plugin's fibers).
    const leases = yield* Effect.serviceOption(Leases.Leases)
    const gate = Access.make(conversations, yield* Effect.serviceOption(PairingNotifier), options.access)
    const connections = new Map<string, ConnectionStatus>()
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const register = (endpoint: ChannelEndpoint) =>
      Effect.gen(function* () {
        if (!idPattern.test(endpoint.pluginId) || !idPattern.test(endpoint.channelId)) {
          return yield* Effect.dieMessage(
            `channel ids must match ${idPattern}: "${endpoint.pluginId}:${endpoint.channelId}"`,
          )
        }
        const key = channelKey(endpoint.pluginId, endpoint.channelId)
        yield* Effect.acquireRelease(
          Effect.suspend(() => {
            if (endpoints.has(key)) return Effect.dieMessage(`channel "${key}" is already registered`)
            endpoints.set(key, endpoint)
            return Effect.void
          }),
          () => Effect.sync(() => endpoints.get(key) === endpoint && endpoints.delete(key)),
        )
        const notify = endpoint.notify
        if (notify !== null) {
          yield* registry.register({
            key,
            displayName: endpoint.name,
            supportsNotifications: true,
            send: (message) => notify({ subject: message.subject, body: message.body, threadId: message.threadId }),
          })
        }
        // One connection per channel across replicas (two pollers on one bot token fight each other).
        if (endpoint.realtime !== null) {
          const report = (status: ConnectionStatus) => {
            if (endpoints.get(key) === endpoint) connections.set(key, status)
          }
          report({ state: "standby", reason: null, failures: 0, since: yield* now })
          yield* Effect.addFinalizer(() => Effect.sync(() => endpoints.has(key) || connections.delete(key)))
          yield* Effect.forkScoped(
            Leases.guarded(leases, `channel:${key}`, keepUp(key, endpoint.realtime, options.realtime, report)),
          )
        }
      })

    const list = Effect.sync(() =>
      Array.from(endpoints.entries(), ([key, endpoint]) => ({
        key,
        pluginId: endpoint.pluginId,
        channelId: endpoint.channelId,
        name: endpoint.name,
        webhookPath: endpoint.webhook === null ? null : webhookPath(endpoint.pluginId, endpoint.channelId),
        realtime: endpoint.realtime !== null,
        connection: endpoint.realtime === null ? null : (connections.get(key) ?? null),
      })),
    )

    const lookup = (key: string) =>
      Effect.suspend(() => {
        const endpoint = endpoints.get(key)
        return endpoint === undefined ? Effect.fail(new ChannelNotFound({ key })) : Effect.succeed(endpoint)
      })

    /** Queues `job` for the conversation, with the endpoint registered under `key` when it runs. */
    const enqueue = (
      key: string,
      conversationId: string,
      job: (endpoint: ChannelEndpoint) => Effect.Effect<void, unknown>,
    ) =>
      Effect.gen(function* () {
        const queueKey = `${key}\n${conversationId}`
        const run = Effect.flatMap(Effect.option(lookup(key)), (found) =>
          found._tag === "Some"
            ? job(found.value)
            : Effect.logWarning("channels: the channel went away before its message was answered").pipe(
                Effect.annotateLogs({ channel: key }),
              ),
        )
        if (!(yield* queues.offer(queueKey, run))) {
          return yield* new ConversationBusy({ key, conversationId, waiting: yield* queues.waiting(queueKey) })
        }
      })

    const decodeInbound = Schema.decodeUnknown(InboundMessage)

    const receive = Effect.fn("ChannelGateway.receive")(function* (key: string, input: InboundMessage) {
      const endpoint = yield* lookup(key)
      const invalid = (message: string) => new InvalidInboundMessage({ key, message })
      const message = yield* Effect.mapError(decodeInbound(input), (error) => invalid(error.message))
      if (message.text.trim() === "" && (message.files ?? []).length === 0) {
        return yield* invalid("a message needs text or a file")
      }
      for (const file of message.files ?? []) {
        const problem = dataUrlProblem(file.url)
        if (problem !== undefined) return yield* invalid(`file url ${problem}`)
      }
      // Accepted as far as the channel can tell: a refused sender must learn nothing from it.
      if (!(yield* gate.admits(endpoint, { ...message, kind: "message" }))) return
      yield* enqueue(key, message.conversationId, (endpoint) => runs.inbound(endpoint, message))
    })

    const answerApproval = Effect.fn("ChannelGateway.answerApproval")(function* (key: string, answer: ApprovalAnswer) {
      const endpoint = yield* lookup(key)
      const found = yield* conversations.approval(answer.approvalId)
      const approval = found._tag === "Some" ? found.value : undefined
      // An approval of another channel or conversation is not found here: ids do not cross conversations.
      if (
        approval === undefined ||
        approval.conversation.pluginId !== endpoint.pluginId ||
        approval.conversation.channelId !== endpoint.channelId ||
        approval.conversation.conversationId !== answer.conversationId
      ) {
        return yield* new ApprovalNotFound({ key, approvalId: answer.approvalId })
      }
      if (answer.sender !== undefined && !(yield* gate.admits(endpoint, { sender: answer.sender, kind: "approval" }))) {
        return yield* new ApprovalNotFound({ key, approvalId: answer.approvalId })
      }
      yield* enqueue(key, answer.conversationId, (current) => runs.answer(current, approval, answer.approved))
    })

    const webhook = (pluginId: string, channelId: string, request: Webhooks.IncomingWebhook) =>
      webhooks.serve(endpoints.get(channelKey(pluginId, channelId)), request)

    const pairings = (pluginId: string) =>
      Effect.gen(function* () {
        return {
          pairings: yield* conversations.pairings(pluginId, yield* now),
          senders: yield* conversations.approvedSenders(pluginId),
        }
      })

    const decidePairing = Effect.fn("ChannelGateway.decidePairing")(function* (
      pluginId: string,
      code: string,
      approved: boolean,
    ) {
      const decided = yield* conversations.decidePairing(pluginId, code.toUpperCase(), approved, yield* now)
      if (Option.isNone(decided)) return yield* new PairingNotFound({ pluginId, code })
      yield* Effect.logInfo(approved ? "channels: pairing approved" : "channels: pairing rejected").pipe(
        Effect.annotateLogs({ channel: channelKey(pluginId, decided.value.channelId), sender: decided.value.senderId }),
      )
      return decided.value
    })

    const removeSender = (pluginId: string, channelId: string, senderId: string) =>
      conversations.removeSender(pluginId, channelId, senderId)

    return ChannelGateway.of({
      register,
      endpoints: list,
      receive,
      answerApproval,
      pairings,
      decidePairing,
      removeSender,
      webhook,
      webhookChallenge: (pluginId, channelId, request) =>
        webhooks.challenge(endpoints.get(channelKey(pluginId, channelId)), request),
    })
  })

/** The gateway; endpoints come from the loader (`register`) or from `endpoint(...)` layers. */
export const layer = (
  options: ChannelGatewayOptions = {},
): Layer.Layer<
  ChannelGateway,
  never,
  Chat | Threads | ChannelConversations | ChannelRegistry | RateLimiter | WebhookReplays | Ids
> => Layer.scoped(ChannelGateway, make(options))

/** A Layer registering `endpoint` while it is alive (tests, embedders with in-process channels). */
export const endpoint = (endpoint: ChannelEndpoint): Layer.Layer<never, never, ChannelGateway> =>
  Layer.scopedDiscard(Effect.flatMap(ChannelGateway, (gateway) => gateway.register(endpoint)))

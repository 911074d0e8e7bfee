import { Context, Effect, Layer, Schema, type Scope } from "effect"
import type { Chat } from "../../chat/Chat.js"
import { dataUrlProblem } from "../../chat/DataUrl.js"
import type { Ids } from "../../ids/Ids.js"
import { RateLimiter } from "../../ratelimit/RateLimiter.js"
import * as Leases from "../../replicas/Leases.js"
import type { StorageError } from "../../storage/StorageError.js"
import type { Threads } from "../../threads/Threads.js"
import { ChannelRegistry } from "../ChannelRegistry.js"
import { InboundMessage } from "./ChannelContract.js"
import { ChannelConversations } from "./ChannelConversations.js"
import {
  ApprovalNotFound,
  type ChannelEndpoint,
  ChannelNotFound,
  ConversationBusy,
  channelKey,
  InvalidInboundMessage,
  idPattern,
  webhookPath,
} from "./ChannelEndpoint.js"
import * as ConversationQueues from "./internal/ConversationQueues.js"
import * as ConversationRuns from "./internal/ConversationRuns.js"
import type { RealtimeOptions } from "./Realtime.js"
import { keepUp } from "./Realtime.js"
import { WebhookReplays } from "./WebhookReplays.js"
import * as Webhooks from "./Webhooks.js"

/** An endpoint as listed (e.g. for GET /api/plugins: `webhookPath`, `realtime`). */
export interface EndpointInfo {
  readonly key: string
  readonly pluginId: string
  readonly channelId: string
  readonly name: string
  readonly webhookPath: string | null
  readonly realtime: boolean
}

export interface ApprovalAnswer {
  readonly conversationId: string
  readonly approvalId: string
  readonly approved: boolean
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
    /** A request to `POST /wh/<pluginId>/<channelId>`: limited, verified, handed to the channel. */
    readonly webhook: (
      pluginId: string,
      channelId: string,
      request: Webhooks.IncomingWebhook,
    ) => Effect.Effect<Webhooks.WebhookAnswer>
    /** A `GET /wh/<pluginId>/<channelId>`: the subscription handshake of `subscribe` verifications. */
    readonly webhookChallenge: (
      pluginId: string,
      channelId: string,
      request: Webhooks.IncomingChallenge,
    ) => Effect.Effect<Webhooks.WebhookAnswer>
  }
>() {}

export interface ChannelGatewayOptions {
  readonly realtime?: RealtimeOptions
  /** Messages and approvals waiting per conversation (the running one included); default 16. */
  readonly queueCapacity?: number
  readonly webhooks?: Webhooks.WebhookOptions
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
          yield* Effect.forkScoped(
            Leases.guarded(leases, `channel:${key}`, keepUp(key, endpoint.realtime, options.realtime)),
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
      yield* lookup(key)
      const invalid = (message: string) => new InvalidInboundMessage({ key, message })
      const message = yield* Effect.mapError(decodeInbound(input), (error) => invalid(error.message))
      if (message.text.trim() === "" && (message.files ?? []).length === 0) {
        return yield* invalid("a message needs text or a file")
      }
      for (const file of message.files ?? []) {
        const problem = dataUrlProblem(file.url)
        if (problem !== undefined) return yield* invalid(`file url ${problem}`)
      }
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
      yield* enqueue(key, answer.conversationId, (current) => runs.answer(current, approval, answer.approved))
    })

    const webhook = (pluginId: string, channelId: string, request: Webhooks.IncomingWebhook) =>
      webhooks.serve(endpoints.get(channelKey(pluginId, channelId)), request)

    const webhookChallenge = (pluginId: string, channelId: string, request: Webhooks.IncomingChallenge) =>
      webhooks.challenge(endpoints.get(channelKey(pluginId, channelId)), request)

    return ChannelGateway.of({ register, endpoints: list, receive, answerApproval, webhook, webhookChallenge })
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

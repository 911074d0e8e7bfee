import { Effect, Schema } from "effect"
import { ChannelDeliveryError } from "../../channels/Channel.js"
import { InboundMessage, Sender, WebhookResponse } from "../../channels/gateway/ChannelContract.js"
import type { ChannelEndpoint } from "../../channels/gateway/ChannelEndpoint.js"
import { channelKey } from "../../channels/gateway/ChannelEndpoint.js"
import type { ChannelGateway } from "../../channels/gateway/ChannelGateway.js"
import type { ConfigFieldDescriptor } from "../PluginManifest.js"
import { PluginCallError, type PluginDescription, type PluginProcess } from "../sandbox/PluginProcess.js"
import { accessOf, redact } from "./ChannelAccessConfig.js"

type ChannelInfo = PluginDescription["channels"][number]

const deliveryError = (key: string) => (error: PluginCallError) =>
  new ChannelDeliveryError({ channel: key, message: error.message })

const decodeResponse = Schema.decodeUnknown(Schema.NullOr(WebhookResponse))

/** A channel's secret now: one of the plugin's settings, or one of its declared variables. */
const secretOf = (
  source: NonNullable<ChannelInfo["webhook"]>["secret"],
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
): string | undefined => {
  const value = "config" in source ? values[source.config] : env[source.env]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * A channel of a running plugin as the gateway drives it: each capability is a call into the
 * plugin's process. The realtime connection is one long call with no timeout, cancelled (the
 * channel's `context.signal` aborted) when the gateway lets it go; its errors are shown with the
 * plugin's secrets masked. Who may talk comes from the plugin's `allowFrom`/`pairing`/`groups`.
 */
export const endpointOf = (
  pluginId: string,
  process: PluginProcess,
  channel: ChannelInfo,
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
  fields: ReadonlyArray<Pick<ConfigFieldDescriptor, "key" | "type">> = [],
): ChannelEndpoint => {
  const key = channelKey(pluginId, channel.id)
  const call = (method: string, params: Record<string, unknown>, timeoutMs?: number | null) =>
    process
      .request(method, { channelId: channel.id, ...params }, timeoutMs === undefined ? undefined : { timeoutMs })
      .pipe(Effect.mapError(deliveryError(key)))
  const webhook = channel.webhook
  return {
    pluginId,
    channelId: channel.id,
    name: channel.name,
    webhook:
      webhook === null
        ? null
        : {
            verification: webhook,
            secret: Effect.sync(() => secretOf(webhook.secret, values, env)),
            ...(webhook.kind === "hmac-sha256" && webhook.subscribe !== undefined
              ? { verifyToken: Effect.sync(() => secretOf(webhook.subscribe!.verifyToken, values, env)) }
              : {}),
            handle: (request) =>
              call("channel.webhook", { request }).pipe(
                Effect.flatMap((answer) =>
                  decodeResponse(answer).pipe(
                    Effect.mapError(
                      () =>
                        new ChannelDeliveryError({ channel: key, message: "the channel answered an invalid response" }),
                    ),
                  ),
                ),
              ),
          },
    realtime: channel.realtime
      ? call("channel.start", {}, null).pipe(
          Effect.asVoid,
          Effect.mapError(
            (error) => new ChannelDeliveryError({ channel: key, message: redact(error.message, fields, values, env) }),
          ),
        )
      : null,
    send: channel.send ? (message) => Effect.asVoid(call("channel.send", { message })) : null,
    notify: channel.notify ? (notification) => Effect.asVoid(call("channel.notify", { notification })) : null,
    access: accessOf(fields, values),
  }
}

const decodeReceive = Schema.decodeUnknown(Schema.Struct({ channelId: Schema.String, message: InboundMessage }))
const decodeAnswer = Schema.decodeUnknown(
  Schema.Struct({
    channelId: Schema.String,
    conversationId: Schema.String,
    approvalId: Schema.String,
    approved: Schema.Boolean,
    sender: Schema.optional(Sender),
  }),
)

/** What a plugin's channel code asks of Aide (`context.receive`, `context.answerApproval`). */
export const channelRequests =
  (gateway: ChannelGateway["Type"]) =>
  (pluginId: string) =>
  (method: string, params: unknown): Effect.Effect<unknown, PluginCallError> => {
    const refused = (message: string) => new PluginCallError({ pluginId, method, reason: "failed", message })
    const described = (error: { readonly _tag: string; readonly message?: string }) =>
      refused(error.message !== undefined && error.message !== "" ? error.message : error._tag)
    switch (method) {
      case "channel.receive":
        return decodeReceive(params).pipe(
          Effect.mapError((error) => refused(`invalid message: ${error.message}`)),
          Effect.flatMap(({ channelId, message }) => gateway.receive(channelKey(pluginId, channelId), message)),
          Effect.mapError(described),
          Effect.as(null),
        )
      case "channel.answerApproval":
        return decodeAnswer(params).pipe(
          Effect.mapError((error) => refused(`invalid answer: ${error.message}`)),
          Effect.flatMap(({ channelId, ...answer }) => gateway.answerApproval(channelKey(pluginId, channelId), answer)),
          Effect.mapError(described),
          Effect.as(null),
        )
      default:
        return Effect.fail(refused(`unknown request ${method}`))
    }
  }

// @ts-check
/**
 * The Slack channel: a function of the plugin's settings (the loader calls it with
 * `{ config, env }`) returning a Socket Mode channel (realtime) or an Events API channel (webhook).
 * All network goes through the context's brokered `fetch` / `webSocket`, so the channel can run
 * in the compartment sandbox.
 */
import { makeApi } from "./api.js"
import { handleEventCallback, handleInteraction, Seen } from "./inbound.js"
import { sendNotification, sendReply } from "./outbound.js"
import { settingsOf } from "./settings.js"
import { runSocketMode } from "./socket.js"

// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Inbound } from "./inbound.js" */
/** @import { ChannelContext, ChannelDefinition, WebhookRequest, WebhookResponse } from "@aide/plugin" */

/**
 * An Events API request (already verified by Aide against the signing secret): a JSON event
 * (`url_verification` answered with its challenge; `event_callback`s deduplicated by `event_id`,
 * so Slack's retries are answered 200 without a second answer) or a form-encoded interaction.
 * @param {Inbound} inbound
 * @param {WebhookRequest} request
 * @param {ChannelContext} context
 * @returns {Promise<WebhookResponse>}
 */
const onWebhook = async (inbound, request, context) => {
  let payload
  try {
    const form = (request.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded")
    payload = JSON.parse(form ? (new URLSearchParams(request.body).get("payload") ?? "") : request.body)
  } catch {
    return { status: 400, body: "not a Slack event" }
  }
  if (payload?.type === "url_verification" && typeof payload.challenge === "string") {
    return { status: 200, headers: { "content-type": "text/plain" }, body: payload.challenge }
  }
  try {
    if (payload?.type === "event_callback") await handleEventCallback(inbound, payload, context)
    else await handleInteraction(inbound, payload, context)
  } catch (error) {
    // Answered 200 all the same: Slack would retry, and the event is deduplicated anyway.
    context.log("slack: an event failed", { error: String(error) })
  }
  return { status: 200 }
}

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const slack = ({ config, env }) => {
  const settings = settingsOf(config, env)
  /** @param {ChannelContext} context */
  const apiOf = (context) => makeApi(settings.apiRoot, context.fetch)
  /** @type {Promise<{ userId: string }> | undefined} */
  let identity
  /** @type {Inbound} */
  const inbound = {
    settings,
    apiOf,
    // The bot's own user id (auth.test), once: to skip our own messages and find our mention.
    bot: (context) => {
      if (identity === undefined) {
        identity = apiOf(context)
          .call("auth.test", settings.botToken, {}, context.signal)
          .then((answer) => ({ userId: String(answer.user_id ?? "") }))
        identity.catch(() => {
          identity = undefined
        })
      }
      return identity
    },
    seen: new Seen(),
  }
  const owner = settings.allowFrom[0]
  /** @type {ChannelDefinition} */
  const base = {
    id: "slack",
    name: "Slack",
    send: (message, context) => sendReply(apiOf(context), settings.botToken, message, context.signal),
    notify: (notification, context) =>
      sendNotification(apiOf(context), settings.botToken, owner, notification, context.signal),
  }
  if (settings.mode === "events") {
    return {
      ...base,
      webhook: {
        verify: {
          kind: "hmac-sha256",
          header: "x-slack-signature",
          prefix: "v0=",
          secret: settings.signingSecret,
          timestamp: {
            header: "x-slack-request-timestamp",
            toleranceSeconds: 300,
            baseString: "v0:{timestamp}:{body}",
          },
        },
        handle: (request, context) => onWebhook(inbound, request, context),
      },
    }
  }
  return {
    ...base,
    realtime: {
      start: async (context) => {
        const api = apiOf(context)
        await inbound.bot(context) // a wrong bot token fails here, before connecting
        await runSocketMode({
          api,
          appToken: settings.appToken,
          webSocket: (url) => context.webSocket(url),
          signal: context.signal,
          log: context.log,
          onEnvelope: (envelope) => {
            const handled =
              envelope.type === "events_api"
                ? handleEventCallback(inbound, envelope.payload, context)
                : envelope.type === "interactive"
                  ? handleInteraction(inbound, envelope.payload, context)
                  : Promise.resolve()
            handled.catch((error) => context.log("slack: an event failed", { error: String(error) }))
          },
        })
      },
    },
  }
}

export default slack

// @ts-check
/**
 * The WhatsApp channel (Cloud API): a webhook channel. Aide checks `X-Hub-Signature-256`
 * (`sha256=` + HMAC-SHA256 of the raw body under the app secret) and answers Meta's GET
 * handshake (`hub.verify_token`) itself; the channel gets verified notifications. All network
 * goes through the context's brokered `fetch`.
 */
import { makeGraph } from "./graph.js"
import { handleNotification, Seen } from "./inbound.js"
import { sendNotification, sendReply } from "./outbound.js"
import { settingsOf } from "./settings.js"

// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Inbound } from "./inbound.js" */
/** @import { ChannelContext, ChannelDefinition } from "@aide/plugin" */

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const whatsapp = ({ config, env }) => {
  const settings = settingsOf(config, env)
  /** @param {ChannelContext} context */
  const graphOf = (context) => makeGraph(settings.apiRoot, settings.accessToken, context.fetch)
  /** @type {Inbound} */
  const inbound = {
    settings,
    graphOf,
    seen: new Seen(),
    lastInbound: new Map(),
    tell: async (context, to, text) => {
      await graphOf(context)
        .call(
          "POST",
          `${settings.phoneNumberId}/messages`,
          { messaging_product: "whatsapp", to, type: "text", text: { body: text } },
          context.signal,
        )
        .catch((error) => context.log("whatsapp: could not tell the sender", { error: String(error) }))
    },
  }
  return {
    id: "whatsapp",
    name: "WhatsApp",
    webhook: {
      verify: {
        kind: "hmac-sha256",
        header: "x-hub-signature-256",
        prefix: "sha256=",
        secret: settings.appSecret,
        subscribe: { verifyToken: settings.verifyToken },
      },
      handle: async (request, context) => {
        let notification
        try {
          notification = JSON.parse(request.body)
        } catch {
          return { status: 400, body: "not a WhatsApp notification" }
        }
        try {
          await handleNotification(inbound, notification, context)
        } catch (error) {
          // 200 all the same: Meta would redeliver for a day, and messages are deduplicated anyway.
          context.log("whatsapp: a notification failed", { error: String(error) })
        }
        return { status: 200 }
      },
    },
    send: (message, context) => sendReply(graphOf(context), settings, message, context),
    notify: (notification, context) =>
      sendNotification(graphOf(context), settings, inbound.lastInbound, notification, context),
  }
}

export default whatsapp

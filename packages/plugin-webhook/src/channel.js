// @ts-check
/**
 * The webhook channel: automation tools (n8n, Zapier, a script) POST signed JSON to Aide, and
 * get the assistant's replies and notifications POSTed, signed the same way, to `callbackUrl`.
 */
import { parseInbound } from "./inbound.js"
import { postSigned } from "./signing.js"

/** @typedef {import("@aide/plugin").ChannelDefinition} ChannelDefinition */
/** @typedef {import("@aide/plugin").WebhookResponse} WebhookResponse */

/**
 * @param {number} status
 * @param {Record<string, unknown>} body
 * @returns {WebhookResponse}
 */
const json = (status, body) => ({ status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

/**
 * @param {unknown} value
 * @param {string} name
 */
const required = (value, name) => {
  if (typeof value !== "string" || value.trim() === "") throw new Error(`webhook: set ${name}`)
  return value
}

/**
 * @param {unknown} value
 * @returns {string | null}
 */
const callbackUrlOf = (value) => {
  if (value === undefined || value === null || value === "") return null
  const url = typeof value === "string" && URL.canParse(value) ? new URL(value) : null
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new Error("webhook: callbackUrl must be an http(s) URL")
  }
  return url.href
}

/**
 * Without a `callbackUrl` the channel only listens (no `send`, no `notify`): replies have
 * nowhere to go, and it is not offered as a notification destination.
 * @param {{ readonly config: Readonly<Record<string, unknown>> }} setup
 * @returns {ChannelDefinition}
 */
const webhook = ({ config }) => {
  const secret = required(config.secret, "secret")
  const callbackUrl = callbackUrlOf(config.callbackUrl)
  /** @type {ChannelDefinition} */
  const channel = {
    id: "webhook",
    name: "Webhook",
    webhook: {
      verify: {
        kind: "hmac-sha256",
        header: "x-aide-signature",
        secret: { config: "secret" },
        encoding: "hex",
        prefix: "sha256=",
        // Signed with the body (`<timestamp>.<body>`): a captured request cannot be sent again.
        timestamp: { header: "x-aide-timestamp", toleranceSeconds: 300 },
      },
      handle: async (request, context) => {
        if (request.method !== "POST") return json(405, { error: "use POST" })
        const inbound = parseInbound(request.body)
        if (inbound.kind === "invalid") return json(400, { error: inbound.error })
        try {
          if (inbound.kind === "approval") {
            const { conversationId, approvalId, approved } = inbound
            await context.answerApproval({ conversationId, approvalId, approved })
          } else {
            const { conversationId, text, files } = inbound
            await context.receive({ conversationId, text, ...(files.length > 0 ? { files } : {}) })
          }
        } catch (error) {
          context.log("webhook: Aide did not accept the request", { error: String(error) })
          return json(422, { error: error instanceof Error ? error.message : String(error) })
        }
        return json(202, { accepted: true, conversationId: inbound.conversationId })
      },
    },
  }
  if (callbackUrl === null) return channel
  return {
    ...channel,
    send: (message, context) =>
      postSigned(
        callbackUrl,
        secret,
        { type: "reply", conversationId: message.conversationId, text: message.text, approvals: message.approvals },
        { signal: context.signal },
      ),
    notify: (notification, context) =>
      postSigned(
        callbackUrl,
        secret,
        {
          type: "notification",
          subject: notification.subject,
          body: notification.body,
          threadId: notification.threadId,
        },
        { signal: context.signal },
      ),
  }
}

export default webhook

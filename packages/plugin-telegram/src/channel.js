// @ts-check
/**
 * The Telegram channel: a function of the plugin's settings (the loader calls it with
 * `{ config, env }`) that returns a long-polling channel or a webhook channel.
 */
import { Api, Bot } from "grammy"
import { handleUpdate } from "./inbound.js"
import { sendNotification, sendReply } from "./outbound.js"

/**
 * @typedef {object} TelegramConfig
 * @property {string} [botToken]
 * @property {string | number} [ownerId]
 * @property {"polling" | "webhook"} [mode]
 * @property {string} [webhookSecret]
 * @property {string} [apiRoot]
 */

/** @typedef {import("@aide/plugin").ChannelContext} ChannelContext */
/** @typedef {import("@aide/plugin").ChannelDefinition} ChannelDefinition */

const DEFAULT_API_ROOT = "https://api.telegram.org"

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

/**
 * The settings, checked: a missing token or owner is an error the owner sees in the plugin list.
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 */
export const settingsOf = (config, env) => {
  const botToken = textOf(config.botToken) || textOf(env.TELEGRAM_BOT_TOKEN)
  if (botToken === "") throw new Error("telegram: set botToken (or the TELEGRAM_BOT_TOKEN environment variable)")
  const ownerId = textOf(config.ownerId)
  if (!/^-?\d+$/.test(ownerId)) throw new Error("telegram: ownerId must be the owner's numeric Telegram user id")
  const mode = config.mode === undefined || config.mode === null || config.mode === "" ? "polling" : config.mode
  if (mode !== "polling" && mode !== "webhook") throw new Error('telegram: mode must be "polling" or "webhook"')
  if (mode === "webhook" && textOf(config.webhookSecret) === "") {
    throw new Error("telegram: webhook mode needs webhookSecret")
  }
  const apiRoot = (textOf(config.apiRoot) || DEFAULT_API_ROOT).replace(/\/+$/, "")
  return { botToken, ownerId, mode, apiRoot }
}

/**
 * Long polling until the channel's signal aborts: resolves then, rejects when Telegram refuses
 * the token (401) or another client polls the same bot (409); grammY retries the rest.
 * @param {ReturnType<typeof settingsOf>} settings
 * @param {import("./inbound.js").Inbound} inbound
 * @param {ChannelContext} context
 */
const poll = async (settings, inbound, context) => {
  if (context.signal.aborted) return
  const bot = new Bot(settings.botToken, { client: { apiRoot: settings.apiRoot } })
  bot.use((ctx) => handleUpdate(inbound, ctx.update, context))
  // One failed update must not stop the channel: log it and go on with the next.
  bot.catch((error) => context.log("telegram: an update failed", { error: String(error.error) }))
  const stop = () => {
    bot.stop().catch(() => undefined)
  }
  context.signal.addEventListener("abort", stop, { once: true })
  try {
    await bot.start({ allowed_updates: ["message", "callback_query"], drop_pending_updates: false })
  } finally {
    context.signal.removeEventListener("abort", stop)
  }
}

/**
 * A webhook request (already verified by Aide against `webhookSecret`): one Telegram update.
 * Answered 200 even when handling it failed (logged), or Telegram would redeliver it forever.
 * @param {import("./inbound.js").Inbound} inbound
 * @param {import("@aide/plugin").WebhookRequest} request
 * @param {ChannelContext} context
 */
const onWebhook = async (inbound, request, context) => {
  let update
  try {
    update = JSON.parse(request.body)
  } catch {
    return { status: 400, body: "not a JSON Telegram update" }
  }
  if (typeof update !== "object" || update === null || typeof update.update_id !== "number") {
    return { status: 400, body: "not a Telegram update" }
  }
  try {
    await handleUpdate(inbound, update, context)
  } catch (error) {
    context.log("telegram: an update failed", { error: String(error) })
  }
  return { status: 200 }
}

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const telegram = ({ config, env }) => {
  const settings = settingsOf(config, env)
  const api = new Api(settings.botToken, { apiRoot: settings.apiRoot })
  /** @type {import("./inbound.js").Inbound} */
  /** @type {Promise<{ id: number, username?: string }> | undefined} */
  let me
  const inbound = {
    api,
    ownerId: settings.ownerId,
    fileUrl: (/** @type {string} */ filePath) => `${settings.apiRoot}/file/bot${settings.botToken}/${filePath}`,
    // Asked once, when a group message first needs it; a failed ask is asked again next time.
    me: () => {
      me ??= api.getMe().catch((error) => {
        me = undefined
        throw error
      })
      return me
    },
  }
  /** @type {ChannelDefinition} */
  const base = {
    id: "telegram",
    name: "Telegram",
    send: (message, context) => sendReply(api, message, context.signal),
    notify: (notification, context) => sendNotification(api, settings.ownerId, notification, context.signal),
  }
  if (settings.mode === "webhook") {
    return {
      ...base,
      webhook: {
        verify: { kind: "token", header: "x-telegram-bot-api-secret-token", secret: { config: "webhookSecret" } },
        handle: (request, context) => onWebhook(inbound, request, context),
      },
    }
  }
  return { ...base, realtime: { start: (context) => poll(settings, inbound, context) } }
}

export default telegram

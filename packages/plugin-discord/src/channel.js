// @ts-check
/**
 * The Discord channel: a function of the plugin's settings (the loader calls it with
 * `{ config, env }`) returning a realtime channel on Discord's Gateway, with REST replies and
 * notifications. The network goes through the context's brokered `fetch` and `webSocket`
 * (Aide opens them to the manifest's `permissions.network`), never through sockets of its own.
 */
/** @import { ChannelContext, ChannelDefinition } from "@aide/plugin" */
/** @import { Timing } from "./gateway.js" */
import { INTENTS, runGateway } from "./gateway.js"
import { handleDispatch } from "./inbound.js"
import { createDmChannels, createNonceMemo, sendNotification, sendReply } from "./outbound.js"
import { createRest, DiscordApiError } from "./rest.js"

export const DEFAULT_API_BASE = "https://discord.com/api/v10"

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

/** @param {unknown} value */
const flag = (value) => value === true || value === "true"

/**
 * The settings, checked: what is wrong is an error the owner sees in the plugin list.
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 */
export const settingsOf = (config, env) => {
  const botToken = textOf(config.botToken) || textOf(env.DISCORD_BOT_TOKEN)
  if (botToken === "") throw new Error("discord: set botToken (or the DISCORD_BOT_TOKEN environment variable)")
  const allowFrom = textOf(config.allowFrom)
    .split(/[\s,]+/)
    .filter((id) => id !== "")
  const wrong = allowFrom.filter((id) => !/^\d{1,20}$/.test(id))
  if (wrong.length > 0) {
    throw new Error(`discord: allowFrom takes Discord user ids (digits); not ${wrong.slice(0, 3).join(", ")}`)
  }
  const apiBase = (textOf(config.apiBase) || DEFAULT_API_BASE).replace(/\/+$/, "")
  if (!/^https?:\/\//.test(apiBase)) throw new Error("discord: apiBase must be an http(s) URL")
  const groups = flag(config.groups)
  return { botToken, allowFrom, groups, pairing: flag(config.pairing), apiBase }
}

/**
 * @typedef {object} DiscordOptions for tests: timing of the Gateway (see gateway.js), the clock of rate limits
 * @property {Timing} [timing]
 * @property {() => number} [now]
 */

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @param {DiscordOptions} [options]
 * @returns {ChannelDefinition}
 */
export const createDiscord = ({ config, env }, options = {}) => {
  const settings = settingsOf(config, env)
  const memo = createNonceMemo(options.now)
  /** @type {string | null} */
  let botId = null
  /** @type {typeof fetch | null} */
  let currentFetch = null
  // One client for the channel's life, so that its rate-limit buckets are shared by every call;
  // each entry point hands it the context's (brokered) fetch.
  const rest = createRest({
    apiBase: settings.apiBase,
    token: settings.botToken,
    fetch: (input, init) => {
      if (currentFetch === null) throw new Error("discord: no context.fetch yet")
      return currentFetch(input, init)
    },
    ...(options.now === undefined ? {} : { now: options.now }),
  })
  /** @param {ChannelContext} context */
  const restOf = (context) => {
    currentFetch = context.fetch
    return rest
  }
  const openDm = createDmChannels(rest)
  /** @param {ChannelContext} context */
  const start = async (context) => {
    restOf(context)
    const intents = INTENTS.DIRECT_MESSAGES | (settings.groups ? INTENTS.GUILD_MESSAGES : 0)
    await runGateway({
      token: settings.botToken,
      intents,
      gatewayUrl: async () => {
        try {
          const answer = await rest.call("GET", "/gateway/bot", { signal: context.signal })
          if (typeof answer?.url !== "string") throw new Error("discord: /gateway/bot gave no url")
          return answer.url
        } catch (error) {
          if (error instanceof DiscordApiError && error.status === 401) {
            throw new Error("discord: Discord refused the bot token (401): check botToken")
          }
          throw error
        }
      },
      connect: (url) => context.webSocket(url),
      onReady: (user) => {
        botId = user.id
      },
      dispatch: (type, data) =>
        handleDispatch({ rest, groups: settings.groups, botId: () => botId }, type, data, context),
      log: context.log,
      signal: context.signal,
      ...(options.timing === undefined ? {} : { timing: options.timing }),
    })
  }
  return {
    id: "discord",
    name: "Discord",
    realtime: { start },
    send: (message, context) => sendReply(restOf(context), memo, message, context.signal),
    notify: async (notification, context) => {
      const owner = settings.allowFrom[0]
      if (owner === undefined) throw new Error("discord: notifications go to the first id of allowFrom; it is empty")
      const rest = restOf(context)
      const channelId = await openDm(owner, context.signal)
      await sendNotification(rest, memo, channelId, notification, context.signal)
    },
  }
}

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const discord = (setup) => createDiscord(setup)

export default discord

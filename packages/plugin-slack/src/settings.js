// @ts-check
/**
 * The plugin's settings, checked: a missing token is an error the owner sees on the plugin's card.
 */

/**
 * @typedef {object} Settings
 * @property {"socket" | "events"} mode
 * @property {string} botToken `xoxb-…`
 * @property {string} appToken `xapp-…` (Socket Mode)
 * @property {{ config: string } | { env: string }} signingSecret where the Events API's signing secret is read
 * @property {string[]} allowFrom Slack user ids (U…/W…); the first one gets notifications
 * @property {boolean} groups
 * @property {string} apiRoot e.g. `https://slack.com/api`
 */

const DEFAULT_API_ROOT = "https://slack.com/api"

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

/** @param {unknown} value */
const flag = (value) => value === true || value === "true"

/**
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 * @returns {Settings}
 */
export const settingsOf = (config, env) => {
  const mode = textOf(config.mode) || "socket"
  if (mode !== "socket" && mode !== "events") throw new Error('slack: mode must be "socket" or "events"')
  const botToken = textOf(config.botToken) || textOf(env.SLACK_BOT_TOKEN)
  if (botToken === "") throw new Error("slack: set botToken (or the SLACK_BOT_TOKEN environment variable)")
  const appToken = textOf(config.appToken) || textOf(env.SLACK_APP_TOKEN)
  if (mode === "socket" && appToken === "") {
    throw new Error("slack: Socket Mode needs appToken, an app-level token xapp-… (or SLACK_APP_TOKEN)")
  }
  const configured = textOf(config.signingSecret) !== ""
  if (mode === "events" && !configured && textOf(env.SLACK_SIGNING_SECRET) === "") {
    throw new Error("slack: Events API mode needs signingSecret (or SLACK_SIGNING_SECRET)")
  }
  const allowFrom = textOf(config.allowFrom)
    .split(/[\s,]+/)
    .filter((id) => id !== "")
  return {
    mode,
    botToken,
    appToken,
    signingSecret: configured ? { config: "signingSecret" } : { env: "SLACK_SIGNING_SECRET" },
    allowFrom,
    groups: flag(config.groups),
    apiRoot: (textOf(config.apiRoot) || DEFAULT_API_ROOT).replace(/\/+$/, ""),
  }
}

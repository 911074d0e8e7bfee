// @ts-check
/**
 * The plugin's settings, checked: a missing token or number is an error the owner sees on the
 * plugin's card.
 */

/**
 * @typedef {object} Settings
 * @property {string} accessToken a system user's permanent token (or a temporary one)
 * @property {string} phoneNumberId the business number's id (not the number)
 * @property {{ config: string } | { env: string }} appSecret where the app secret is read
 * @property {{ config: string } | { env: string }} verifyToken where the webhook's verify token is read
 * @property {string[]} allowFrom phone numbers (E.164, `+` and digits); the first gets notifications
 * @property {string} notifyTemplate an approved template for notifications outside the 24-hour window ("" = none)
 * @property {string} templateLanguage its language code
 * @property {string} apiRoot e.g. `https://graph.facebook.com/v21.0`
 */

const DEFAULT_API_ROOT = "https://graph.facebook.com/v21.0"

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

/** `+1 (650) 555-1234`, `16505551234` → `+16505551234`. @param {string} value */
export const e164 = (value) => `+${value.replace(/[^\d]/g, "")}`

/**
 * A secret from its config field, else its environment variable: where Aide reads it.
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 * @param {string} key
 * @param {string} variable
 * @returns {{ config: string } | { env: string } | null}
 */
const secretSource = (config, env, key, variable) =>
  textOf(config[key]) !== "" ? { config: key } : textOf(env[variable]) !== "" ? { env: variable } : null

/**
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 * @returns {Settings}
 */
export const settingsOf = (config, env) => {
  const accessToken = textOf(config.accessToken) || textOf(env.WHATSAPP_ACCESS_TOKEN)
  if (accessToken === "")
    throw new Error("whatsapp: set accessToken (or the WHATSAPP_ACCESS_TOKEN environment variable)")
  const phoneNumberId = textOf(config.phoneNumberId)
  if (!/^\d{1,30}$/.test(phoneNumberId))
    throw new Error("whatsapp: phoneNumberId must be the business number's numeric id")
  const appSecret = secretSource(config, env, "appSecret", "WHATSAPP_APP_SECRET")
  if (appSecret === null)
    throw new Error("whatsapp: set appSecret (or WHATSAPP_APP_SECRET): webhooks are signed with it")
  const verifyToken = secretSource(config, env, "verifyToken", "WHATSAPP_VERIFY_TOKEN")
  if (verifyToken === null)
    throw new Error("whatsapp: set verifyToken (or WHATSAPP_VERIFY_TOKEN), the webhook's verify token")
  const allowFrom = textOf(config.allowFrom)
    .split(/[\n,;]+/)
    .map((entry) => entry.trim())
    .filter((entry) => /\d/.test(entry))
    .map(e164)
  return {
    accessToken,
    phoneNumberId,
    appSecret,
    verifyToken,
    allowFrom,
    notifyTemplate: textOf(config.notifyTemplate),
    templateLanguage: textOf(config.templateLanguage) || "en_US",
    apiRoot: (textOf(config.apiRoot) || DEFAULT_API_ROOT).replace(/\/+$/, ""),
  }
}

// @ts-check
/**
 * The e-mail channel's settings, checked once when the plugin starts: anything wrong is an error
 * the owner sees in the plugin list, never a connection attempt with half a configuration.
 */

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

// A mailbox address: no spaces, angle brackets, commas or quotes, and exactly one at-sign.
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/**
 * @param {unknown} value
 * @param {string} key
 * @param {number} fallback
 * @param {number} min
 * @param {number} max
 */
const numberOf = (value, key, fallback, min, max) => {
  if (value === undefined || value === null || value === "") return fallback
  const number = typeof value === "number" ? value : Number(value)
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new Error(`email: ${key} must be a whole number from ${min} to ${max}`)
  }
  return number
}

/**
 * @param {unknown} value
 * @param {string} key
 * @returns {"tls" | "starttls"}
 */
const tlsOf = (value, key) => {
  if (value === undefined || value === null || value === "") return "tls"
  if (value === "tls" || value === "starttls") return value
  throw new Error(`email: ${key} must be "tls" or "starttls"`)
}

/**
 * The allowlist as written: comma- or newline-separated addresses, lower-cased (the local part
 * is case-sensitive in theory, in no mail system anyone uses).
 * @param {unknown} value
 */
export const addressesOf = (value) =>
  textOf(value)
    .split(/[\s,;]+/)
    .map((address) => address.trim().toLowerCase())
    .filter((address) => address !== "")

/**
 * @typedef {object} Settings
 * @property {{ host: string, port: number, tls: "tls" | "starttls" }} imap
 * @property {{ host: string, port: number, tls: "tls" | "starttls" }} smtp
 * @property {string} username
 * @property {string} password
 * @property {string} fromAddress lower-case
 * @property {string} fromName
 * @property {string[]} allowFrom lower-case
 * @property {number} pollMs
 * @property {boolean} allowSelfSigned
 * @property {boolean} requireAuthenticated
 */

/**
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 * @returns {Settings}
 */
export const settingsOf = (config, env) => {
  const username = textOf(config.username)
  if (username === "") throw new Error("email: set username (the login of the assistant's mailbox)")
  const password = textOf(config.password) || textOf(env.EMAIL_PASSWORD)
  if (password === "") throw new Error("email: set password (or the EMAIL_PASSWORD environment variable)")
  const imapHost = textOf(config.imapHost)
  const smtpHost = textOf(config.smtpHost)
  if (imapHost === "") throw new Error("email: set imapHost")
  if (smtpHost === "") throw new Error("email: set smtpHost")
  const imapTls = tlsOf(config.imapTls, "imapTls")
  const smtpTls = tlsOf(config.smtpTls, "smtpTls")
  const fromAddress = (textOf(config.fromAddress) || username).toLowerCase()
  if (!ADDRESS.test(fromAddress)) {
    throw new Error("email: set fromAddress (the username is not an e-mail address)")
  }
  // Aide's gateway compares sender ids exactly, and the channel passes From addresses lower-cased:
  // an address written with capitals would never match, silently. Say so instead.
  const capitalised = textOf(config.allowFrom)
    .split(/[\s,;]+/)
    .find((address) => address !== address.toLowerCase())
  if (capitalised !== undefined) {
    throw new Error(`email: write the allowFrom addresses in lower case (Aide compares them exactly): ${capitalised}`)
  }
  const allowFrom = addressesOf(config.allowFrom)
  const wrong = allowFrom.find((address) => !ADDRESS.test(address))
  if (wrong !== undefined) throw new Error(`email: allowFrom holds something that is not an address: ${wrong}`)
  return {
    imap: {
      host: imapHost,
      port: numberOf(config.imapPort, "imapPort", imapTls === "tls" ? 993 : 143, 1, 65535),
      tls: imapTls,
    },
    smtp: {
      host: smtpHost,
      port: numberOf(config.smtpPort, "smtpPort", smtpTls === "tls" ? 465 : 587, 1, 65535),
      tls: smtpTls,
    },
    username,
    password,
    fromAddress,
    fromName: textOf(config.fromName) || "Aide",
    allowFrom,
    pollMs: numberOf(config.pollSeconds, "pollSeconds", 60, 1, 3600) * 1000,
    allowSelfSigned: config.allowSelfSigned === true,
    requireAuthenticated: config.requireAuthenticated === true,
  }
}

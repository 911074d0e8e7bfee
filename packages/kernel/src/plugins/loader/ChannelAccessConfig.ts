import type { ChannelAccess } from "../../channels/gateway/ChannelEndpoint.js"
import type { ConfigFieldDescriptor } from "../PluginManifest.js"

/** The config keys of the owner-only convention (docs/channels.md "Who may talk"). */
export const accessKeys = ["allowFrom", "pairing", "groups"] as const

/** Telegram's original owner field: one more allowed sender. */
const ownerKey = "ownerId"

/** At most this many allowed senders per channel are read from the settings. */
const maxAllowed = 1_000

/** Sender ids in a setting: text split on commas, spaces and new lines, or a number. */
const idsOf = (value: unknown): Array<string> => {
  if (typeof value === "number" && Number.isFinite(value)) return [String(value)]
  if (typeof value !== "string") return []
  return value
    .split(/[\s,;]+/)
    .map((id) => id.trim())
    .filter((id) => id !== "" && id.length <= 320)
}

/**
 * The gateway's access settings of a plugin's channels, from its settings: `allowFrom` (and a
 * legacy `ownerId`), `pairing`, `groups`. A plugin that declares none of these fields gets no
 * checks (null): a signed webhook's signature is its proof of who is talking.
 */
export const accessOf = (
  fields: ReadonlyArray<Pick<ConfigFieldDescriptor, "key">>,
  values: Readonly<Record<string, unknown>>,
): ChannelAccess | null => {
  const declared = new Set(fields.map((field) => field.key))
  if (![...accessKeys, ownerKey].some((key) => declared.has(key))) return null
  const allowFrom = new Set([
    ...(declared.has("allowFrom") ? idsOf(values.allowFrom) : []),
    ...(declared.has(ownerKey) ? idsOf(values[ownerKey]) : []),
  ])
  return {
    allowFrom: [...allowFrom].slice(0, maxAllowed),
    pairing: declared.has("pairing") && values.pairing === true,
    groups: declared.has("groups") && values.groups === true,
  }
}

/**
 * `message` with every secret of the plugin (its password settings and declared variables)
 * masked: a realtime channel's error is shown on its card and in GET /api/plugins, and a
 * platform's error may quote the URL its token is in.
 */
export const redact = (
  message: string,
  fields: ReadonlyArray<Pick<ConfigFieldDescriptor, "key" | "type">>,
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
): string => {
  const secrets = [
    ...fields.filter((field) => field.type === "password").map((field) => values[field.key]),
    ...Object.values(env),
  ].filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
  let masked = message
  for (const secret of secrets) masked = masked.split(secret).join("••••••")
  return masked.length > 500 ? `${masked.slice(0, 499)}…` : masked
}

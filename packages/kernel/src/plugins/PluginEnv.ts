import { catalogue } from "../models/Providers.js"

/**
 * Environment variables Aide itself uses, which a plugin's manifest may declare but is not given
 * unless the owner allows each one by name in `plugins.<id>.allowEnv` (docs/plugins.md): its own
 * `AIDE_*` settings (the JWT secret among them), the database and Redis URLs, and every model
 * provider's variables (keys and base URLs). A plugin declaring one that is not allowed is listed
 * with a validation error and not loaded; one that is allowed carries a warning.
 */

const fixed = new Set(["DATABASE_URL", "REDIS_URL"])
const providers = new Set(catalogue.flatMap((provider) => [...provider.envVars, ...provider.requiredEnv]))

export const isAidesOwn = (name: string): boolean => name.startsWith("AIDE_") || fixed.has(name) || providers.has(name)

/** The owner's allowance: `plugins.<id>.allowEnv`, when it is a list of names. */
export const allowedEnv = (values: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const allowed = values.allowEnv
  return Array.isArray(allowed) ? allowed.filter((name): name is string => typeof name === "string") : []
}

/** Every name the manifest declares (envVars and the tools' and channels' permissions.env). */
export const declaredNames = (manifest: {
  readonly envVars?: ReadonlyArray<{ readonly name: string }>
  readonly provides: {
    readonly tools?: ReadonlyArray<{ readonly permissions?: { readonly env?: ReadonlyArray<string> } }>
    readonly channels?: ReadonlyArray<{ readonly permissions?: { readonly env?: ReadonlyArray<string> } }>
  }
}): ReadonlyArray<string> => [
  ...new Set([
    ...(manifest.envVars ?? []).map((variable) => variable.name),
    ...(manifest.provides.tools ?? []).flatMap((tool) => tool.permissions?.env ?? []),
    ...(manifest.provides.channels ?? []).flatMap((channel) => channel.permissions?.env ?? []),
  ]),
]

/** Aide's own names the manifest declares: refused (not allowed) and allowed ones. */
export const aidesOwnDeclared = (names: ReadonlyArray<string>, allowed: ReadonlyArray<string>) => {
  const own = names.filter(isAidesOwn)
  return {
    refused: own.filter((name) => !allowed.includes(name)),
    allowed: own.filter((name) => allowed.includes(name)),
  }
}

export const refusedMessage = (pluginId: string, name: string) =>
  `environment variable ${name} is Aide's own: it is given to a plugin only if plugins.${pluginId}.allowEnv lists it`

const allowedPrefix = "Gets Aide's own environment variable "

export const allowedMessage = (pluginId: string, name: string) =>
  `${allowedPrefix}${name} (allowed in plugins.${pluginId}.allowEnv)`

/** Whether a listing alert is one of `allowedMessage` (kept once the plugin is loaded). */
export const isAllowedEnvAlert = (alert: { readonly message: string }) => alert.message.startsWith(allowedPrefix)

import type { Plugin } from "@aide/client"

export type ConfigField = Plugin["configFields"][number]

/** What GET /api/plugins shows for a stored password; sent back as is, the server keeps the secret. */
export const redactedValue = "••••••"

/**
 * A plugin's settings form as the value of `plugins.<id>` in PATCH /api/config: a checkbox is
 * true or false, a number a number, an emptied field `null` (cleared), a password left as shown
 * (redacted) is sent back redacted so the stored secret stays.
 */
export const pluginPatch = (
  fields: ReadonlyArray<ConfigField>,
  form: { readonly get: (key: string) => unknown },
): Record<string, unknown> =>
  Object.fromEntries(
    fields.map((field) => {
      const raw = form.get(field.key)
      if (field.type === "boolean") return [field.key, raw === "on"]
      const text = typeof raw === "string" ? raw.trim() : ""
      if (text === "") return [field.key, null]
      return [field.key, field.type === "number" ? Number(text) : field.type === "password" ? raw : text]
    }),
  )

type Alert = { readonly level?: string; readonly message?: string }

/** Where an enabled plugin is: starting ("Loading" alert), failed ("Not loaded: …"), or loaded. */
export const pluginState = (plugin: Plugin): "disabled" | "blocked" | "loading" | "failed" | "loaded" => {
  if (!plugin.enabled) return "disabled"
  // Required settings or variables missing: the server does not start it until they are there.
  if (plugin.validationErrors.length > 0) return "blocked"
  const alerts = [
    ...(plugin.provides.tools?.alerts ?? []),
    ...(plugin.provides.agents?.alerts ?? []),
  ] as ReadonlyArray<Alert>
  if (alerts.some((alert) => alert.message?.startsWith("Not loaded") && alert.level === "error")) return "failed"
  // "Loading", or the catalog's "Not loaded" of a plugin the loader has not picked up yet.
  if (alerts.some((alert) => alert.message === "Loading" || alert.message?.startsWith("Not loaded"))) return "loading"
  if (plugin.provides.channels !== undefined && !plugin.provides.channels.loaded) return "loading"
  return "loaded"
}

/**
 * The name the model calls a plugin's tool by (the kernel's `toolId`: `<plugin>_<tool>`, other
 * characters as `_`); undefined past 64 characters, where the kernel appends a hash.
 */
export const modelToolName = (pluginId: string, toolId: string): string | undefined => {
  const local = toolId.startsWith(`${pluginId}:`) ? toolId.slice(pluginId.length + 1) : toolId
  const name = `${pluginId}_${local}`.replace(/[^A-Za-z0-9_-]/g, "_")
  return name === `${pluginId}_${local}` && name.length <= 64 ? name : undefined
}

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

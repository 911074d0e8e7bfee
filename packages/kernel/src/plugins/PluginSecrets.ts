import { settingsProblems } from "./loader/PluginSettings.js"
import { redactedValue, redactValues, valueProblems } from "./PluginConfigCheck.js"
import type { ConfigFieldDescriptor } from "./PluginManifest.js"

/**
 * A patch of `plugins` as the owner sends it, checked against the plugins' declared fields: a
 * value of the wrong type is refused (400), a password sent back as `redactedValue` (what GET
 * shows) keeps the stored secret. A missing required field is not refused here: the plugin is
 * listed with it in `validationErrors` and skipped until it is set.
 */
export const checkPluginsPatch = (
  fieldsOf: (pluginId: string) => ReadonlyArray<ConfigFieldDescriptor> | undefined,
  stored: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  plugins: unknown,
): { readonly plugins: unknown; readonly problems: ReadonlyArray<string> } => {
  if (typeof plugins !== "object" || plugins === null || Array.isArray(plugins)) return { plugins, problems: [] }
  const problems: Array<string> = []
  const restored: Record<string, unknown> = {}
  for (const [id, patch] of Object.entries(plugins as Record<string, unknown>)) {
    const fields = fieldsOf(id)
    if (typeof patch === "object" && patch !== null && !Array.isArray(patch)) {
      problems.push(...settingsProblems(id, patch as Record<string, unknown>))
    }
    if (fields === undefined || typeof patch !== "object" || patch === null || Array.isArray(patch)) {
      restored[id] = patch
      continue
    }
    const values: Record<string, unknown> = { ...(patch as Record<string, unknown>) }
    for (const field of fields) {
      if (field.type !== "password" || values[field.key] !== redactedValue) continue
      const secret = stored[id]?.[field.key]
      if (typeof secret === "string") values[field.key] = secret
      else problems.push(`plugins.${id}.${field.key}: ${redactedValue} stands for a stored secret, and none is stored`)
    }
    problems.push(...valueProblems(id, fields, values))
    restored[id] = values
  }
  return { plugins: restored, problems }
}

/** `plugins` with every declared password field redacted. */
export const redactPlugins = (
  fieldsOf: (pluginId: string) => ReadonlyArray<ConfigFieldDescriptor> | undefined,
  plugins: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
) => Object.fromEntries(Object.entries(plugins).map(([id, values]) => [id, redactValues(fieldsOf(id) ?? [], values)]))

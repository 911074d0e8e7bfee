import type { ConfigFieldDescriptor } from "./PluginManifest.js"

/**
 * A plugin's config (`plugins.<id>`) against the fields its manifest declares: required ones
 * present, each value of its field's type. Keys the manifest does not declare are left to the
 * loader (per-tool overrides and the like). Problems are worded `plugins.<id>.<key>: reason`.
 */
export const configProblems = (
  pluginId: string,
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
): ReadonlyArray<string> => checked(pluginId, fields, values, true)

/** Only the values set, each of its field's type (what a PATCH must satisfy). */
export const valueProblems = (
  pluginId: string,
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
): ReadonlyArray<string> => checked(pluginId, fields, values, false)

const checked = (
  pluginId: string,
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
  requireAll: boolean,
) => {
  const problems: Array<string> = []
  for (const field of fields) {
    const path = `plugins.${pluginId}.${field.key}`
    const value = values[field.key]
    if (value === undefined || value === null || value === "") {
      if (requireAll && field.required === true) problems.push(`${path}: required`)
      continue
    }
    const problem = valueProblem(field, value)
    if (problem !== undefined) problems.push(`${path}: ${problem}`)
  }
  return problems
}

const valueProblem = (field: ConfigFieldDescriptor, value: unknown): string | undefined => {
  switch (field.type) {
    case "text":
    case "password":
      return typeof value === "string" ? undefined : "must be a string"
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "must be a number"
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false"
    case "enum": {
      const allowed = (field.options ?? []).map((option) => option.value)
      return typeof value === "string" && allowed.includes(value)
        ? undefined
        : `must be one of ${allowed.map((option) => JSON.stringify(option)).join(", ")}`
    }
  }
}

/** What `GET /api/config` and `GET /api/plugins` show for a password field. */
export const redactedValue = "••••••"

/** A plugin's values with its password fields redacted. */
export const redactValues = (
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  const secret = new Set(fields.filter((field) => field.type === "password").map((field) => field.key))
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      secret.has(key) && typeof value === "string" && value !== "" ? redactedValue : value,
    ]),
  )
}

/** The plugin's config as shown: password fields redacted, `enabled` left out (it has its own field). */
export const shownConfig = (
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  const { enabled: _enabled, ...rest } = redactValues(fields, values)
  return rest
}

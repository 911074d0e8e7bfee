import type { ConfigFieldDescriptor } from "../PluginManifest.js"

/**
 * The keys of `plugins.<id>` that belong to Aide rather than to the plugin's own fields:
 * `enabled`, per-tool approval (`tools.<toolId>.requireApproval`), per-agent model
 * (`agents.<agentId>.model`, `"provider/model"` or `{ provider, model }`) and `allowEnv`, the
 * names of Aide's own environment variables the owner lets this plugin have (PluginEnv.ts).
 */
export const reservedKeys: ReadonlySet<string> = new Set(["enabled", "tools", "agents", "allowEnv"])

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/
const maxAllowEnv = 64

export interface ModelChoice {
  readonly provider: string
  readonly model: string
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const entry = (values: Readonly<Record<string, unknown>>, group: "tools" | "agents", id: string) => {
  const all = values[group]
  if (!isObject(all) || !Object.hasOwn(all, id)) return undefined
  const one = all[id]
  return isObject(one) ? one : undefined
}

/** The owner's approval policy for one tool, when set. */
export const toolApproval = (values: Readonly<Record<string, unknown>>, toolId: string): boolean | undefined => {
  const value = entry(values, "tools", toolId)?.requireApproval
  return typeof value === "boolean" ? value : undefined
}

const modelOf = (value: unknown): ModelChoice | undefined => {
  if (typeof value === "string") {
    const slash = value.indexOf("/")
    return slash > 0 && slash < value.length - 1
      ? { provider: value.slice(0, slash), model: value.slice(slash + 1) }
      : undefined
  }
  if (isObject(value) && typeof value.provider === "string" && typeof value.model === "string") {
    return value.provider !== "" && value.model !== "" ? { provider: value.provider, model: value.model } : undefined
  }
  return undefined
}

/** The owner's model for one agent, when set. */
export const agentModel = (values: Readonly<Record<string, unknown>>, agentId: string): ModelChoice | undefined =>
  modelOf(entry(values, "agents", agentId)?.model)

/** What a PATCH may not store in Aide's own keys of `plugins.<id>`. */
export const settingsProblems = (
  pluginId: string,
  values: Readonly<Record<string, unknown>>,
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const path = `plugins.${pluginId}`
  if (values.enabled !== undefined && values.enabled !== null && typeof values.enabled !== "boolean") {
    problems.push(`${path}.enabled: must be true or false`)
  }
  const allowEnv = values.allowEnv
  if (allowEnv !== undefined && allowEnv !== null) {
    if (
      !Array.isArray(allowEnv) ||
      allowEnv.length > maxAllowEnv ||
      !allowEnv.every((name) => typeof name === "string" && name.length <= 128 && envName.test(name))
    ) {
      problems.push(`${path}.allowEnv: must be a list of at most ${maxAllowEnv} environment variable names`)
    }
  }
  for (const group of ["tools", "agents"] as const) {
    const all = values[group]
    if (all === undefined || all === null) continue
    if (!isObject(all)) {
      problems.push(`${path}.${group}: must be an object keyed by ${group === "tools" ? "tool" : "agent"} id`)
      continue
    }
    for (const [id, one] of Object.entries(all)) {
      if (one === null) continue
      if (!isObject(one)) problems.push(`${path}.${group}.${id}: must be an object`)
      else if (group === "tools" && one.requireApproval !== undefined && typeof one.requireApproval !== "boolean") {
        problems.push(`${path}.tools.${id}.requireApproval: must be true or false`)
      } else if (
        group === "agents" &&
        one.model !== undefined &&
        one.model !== null &&
        modelOf(one.model) === undefined
      ) {
        problems.push(`${path}.agents.${id}.model: must be "provider/model" or { provider, model }`)
      }
    }
  }
  return problems
}

/** What the plugin's code is given as `context.config`: its declared fields only. */
export const pluginConfig = (
  fields: ReadonlyArray<ConfigFieldDescriptor>,
  values: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> => {
  const config: Record<string, unknown> = {}
  for (const field of fields) if (Object.hasOwn(values, field.key)) config[field.key] = values[field.key]
  return config
}

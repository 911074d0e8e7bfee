/** A JSON object: what the config document and every patch of it are. */
export type JsonObject = { readonly [key: string]: unknown }

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `target[key] = value`, also for a `__proto__` key from JSON (kept as data, not a prototype). */
export const setKey = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * JSON Merge Patch (RFC 7396): objects merge key by key, `null` deletes a key, anything else
 * (arrays included) replaces. Neither argument is mutated.
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isJsonObject(patch)) return patch
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key]
    } else {
      setKey(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value))
    }
  }
  return result
}

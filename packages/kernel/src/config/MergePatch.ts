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
 *
 * Iterative, with its own work list: a recursive merge overflowed the stack on a document
 * nested a few thousand levels deep, which a stored row or an embedder's patch can be.
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isJsonObject(patch)) return patch
  const root: Record<string, unknown> = isJsonObject(target) ? { ...target } : {}
  const work: Array<readonly [Record<string, unknown>, JsonObject]> = [[root, patch]]
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [result, part] = next
    for (const [key, value] of Object.entries(part)) {
      if (value === null) {
        delete result[key]
      } else if (!isJsonObject(value)) {
        setKey(result, key, value)
      } else {
        const existing = Object.hasOwn(result, key) ? result[key] : undefined
        const merged: Record<string, unknown> = isJsonObject(existing) ? { ...existing } : {}
        setKey(result, key, merged)
        work.push([merged, value])
      }
    }
  }
  return root
}

/**
 * The path to the first value nested deeper than `limit` objects and arrays (the value itself
 * counting as level 1), or `undefined` when there is none. Iterative, like `mergePatch`, so it
 * can measure any input; it stops descending at the limit, so its cost is bounded by the input.
 */
export const pathDeeperThan = (value: unknown, limit: number): ReadonlyArray<string> | undefined => {
  const work: Array<readonly [unknown, ReadonlyArray<string>]> = [[value, []]]
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [current, path] = next
    if (typeof current !== "object" || current === null) continue
    if (path.length >= limit) return path
    for (const [key, child] of Object.entries(current)) work.push([child, [...path, key]])
  }
  return undefined
}

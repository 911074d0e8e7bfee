/**
 * Tool outputs and stored message parts bounded before they are stored or sent to a model.
 *
 * A tool's result is whatever a plugin or an MCP server sends: a value nested 1,800 levels is
 * only 3.6 KB, yet every walk of it that recurses (the AI SDK's prompt schema, JSON encoders of
 * providers) overflows the stack, and once stored it failed every later request of its thread.
 * Values are copied to plain JSON down to `maxDepth` levels; anything deeper is replaced by a
 * marker string the model can read. The walk itself recurses at most `maxDepth` levels.
 */

/** Levels of a tool output kept; an output's own shape rarely needs more than a handful. */
export const maxOutputDepth = 32
/** Levels of a stored part kept: a tool part holds its output two levels down. */
export const maxPartDepth = maxOutputDepth + 8
/**
 * JSON text of one tool output, at most: past it the output becomes a marker with a preview.
 * Room for an MCP image result (base64 content parts); a plugin's IPC message is smaller still.
 */
export const maxOutputBytes = 4 * 1024 * 1024
/** Characters of an over-size output kept as its preview. */
const previewChars = 16 * 1024

export const deepMarker = (depth: number) => `[value nested deeper than ${depth} levels left out]`

interface Walk {
  readonly maxDepth: number
  /** Whether a value was replaced (too deep, a bigint): callers keep the original otherwise. */
  changed: boolean
}

const walk = (value: unknown, depth: number, state: Walk): unknown => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value
    case "number":
      return Number.isFinite(value) ? value : null
    case "bigint":
      state.changed = true
      return value.toString()
    case "object":
      break
    default:
      // undefined, functions, symbols: what JSON.stringify leaves out (so no change to report).
      return undefined
  }
  if (value === null) return null
  if (depth >= state.maxDepth) {
    state.changed = true
    return deepMarker(state.maxDepth)
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === "function") return walk(toJSON.call(value), depth, state)
  if (Array.isArray(value)) {
    return value.map((item) => {
      const bounded = walk(item, depth + 1, state)
      return bounded === undefined ? null : bounded
    })
  }
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const bounded = walk((value as Record<string, unknown>)[key], depth + 1, state)
    if (bounded !== undefined) copy[key] = bounded
  }
  return copy
}

/** `value` as plain JSON at most `maxDepth` levels deep, and whether anything was replaced. */
export const bounded = (value: unknown, maxDepth: number): { readonly value: unknown; readonly changed: boolean } => {
  const state: Walk = { maxDepth, changed: false }
  const result = walk(value, 0, state)
  return { value: result === undefined ? null : result, changed: state.changed }
}

/**
 * A tool's output as it is stored and given to the model: plain JSON, at most `maxOutputDepth`
 * levels deep and `maxOutputBytes` of JSON text (past that, a marker string with a preview).
 */
export const boundedOutput = (output: unknown): unknown => {
  const { value } = bounded(output, maxOutputDepth)
  const text = JSON.stringify(value)
  if (text === undefined || text.length <= maxOutputBytes) return value
  return `[tool output of ${text.length} characters cut to its first ${previewChars}] ${text.slice(0, previewChars)}`
}

/**
 * Stored parts nested at most `maxPartDepth` levels (deeper values replaced by the marker); the
 * array itself when nothing needed replacing, so a clean history costs one walk and no copy.
 */
export const boundedParts = (parts: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  let changed = false
  const result = parts.map((part) => {
    const walked = bounded(part, maxPartDepth)
    if (!walked.changed) return part
    changed = true
    return walked.value
  })
  return changed ? result : parts
}

/**
 * What the host checks of a plugin tool's input before it crosses into the plugin's process:
 * its shape (a JSON object) and its size, in one bounded pass. The tool's JSON Schema is checked
 * in the plugin's process (runtime/input-check.mjs): a schema can be made to backtrack or run in
 * quadratic time, and that time must never be the server's event loop (docs/plugin-sandbox.md).
 */

/** Largest input sent to a plugin tool, counted as JSON text (close enough, never lower). */
const maxInputBytes = 1024 * 1024
/** Deepest nesting of an input. */
const maxInputDepth = 64

/** Why `input` cannot be sent, or undefined. Iterative and stops at the first bound passed. */
export const inputProblem = (input: unknown): string | undefined => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return "input: must be an object"
  let bytes = 0
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value: input, depth: 1 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number }
    if (typeof value === "string") bytes += value.length + 2
    else if (value !== null && typeof value === "object") {
      if (depth > maxInputDepth) return `input: nested deeper than ${maxInputDepth} levels`
      bytes += 2
      const keys = Array.isArray(value) ? undefined : Object.keys(value)
      const count = keys === undefined ? (value as Array<unknown>).length : keys.length
      for (let index = 0; index < count && bytes <= maxInputBytes; index++) {
        const key = keys?.[index]
        bytes += key === undefined ? 1 : key.length + 4
        stack.push({
          value: key === undefined ? (value as Array<unknown>)[index] : (value as Record<string, unknown>)[key],
          depth: depth + 1,
        })
      }
    } else bytes += 8
    if (bytes > maxInputBytes) return `input: larger than ${maxInputBytes} bytes`
  }
  return undefined
}

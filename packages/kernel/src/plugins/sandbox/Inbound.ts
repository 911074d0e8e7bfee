/**
 * One frame from a plugin process, read without trusting it: parsed in a try, then only its
 * primitives are looked at. Nothing here calls a method of, or `String()` on, a value the plugin
 * made: a text field that is not a string is replaced by the host's own words, never converted.
 */

export type Inbound =
  | { readonly kind: "log"; readonly level: string; readonly message: string; readonly data?: unknown }
  | { readonly kind: "resolved"; readonly id: string; readonly value: unknown }
  | { readonly kind: "rejected"; readonly id: string; readonly message: string; readonly output: boolean }
  | { readonly kind: "cancel"; readonly id: string }
  | { readonly kind: "request"; readonly id: string; readonly method: string; readonly params: unknown }
  | { readonly kind: "invalid"; readonly reason: string }

/** Longest text kept from a log line or an error message. */
export const maxText = 4096
/** Log data larger than this (as JSON) or deeper than `maxLogDepth` is left out of the log. */
const maxLogData = 16 * 1024
const maxLogDepth = 32
const maxId = 64
const levels = new Set(["debug", "info", "warn", "error"])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === "string" ? value.slice(0, maxText) : undefined)

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= maxId ? value : undefined

/** Whether parsed JSON nests at most `max` levels; iterative, so any depth is safe to ask about. */
export const depthAtMost = (value: unknown, max: number): boolean => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number }
    if (item === null || typeof item !== "object") continue
    if (depth >= max) return false
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push({ value: child, depth: depth + 1 })
  }
  return true
}

const invalid = (reason: string): Inbound => ({ kind: "invalid", reason })

/** `frame`: the UTF-8 text of one frame, at most the wire's message limit. */
export const read = (frame: string): Inbound => {
  let message: unknown
  try {
    message = JSON.parse(frame)
  } catch {
    return invalid("sent a message that is not JSON")
  }
  if (!isRecord(message)) return invalid("sent a message the wire does not know")
  if (message.kind === "log") {
    const data = message.data
    const keep = data !== undefined && frame.length <= maxLogData && depthAtMost(data, maxLogDepth)
    return {
      kind: "log",
      level: typeof message.level === "string" && levels.has(message.level) ? message.level : "info",
      message: text(message.message) ?? "(a log line that is not text)",
      ...(keep ? { data } : {}),
    }
  }
  const id = idOf(message.id)
  if (id === undefined) return invalid("sent a message without a valid id")
  if (message.kind === "response") {
    if (message.ok === true) return { kind: "resolved", id, value: message.value ?? null }
    const error = isRecord(message.error) ? message.error : {}
    return {
      kind: "rejected",
      id,
      message: text(error.message) ?? "the plugin failed without a text message",
      output: error.code === "output",
    }
  }
  if (message.kind === "cancel") return { kind: "cancel", id }
  if (message.kind === "request" && typeof message.method === "string" && message.method.length <= 100) {
    return { kind: "request", id, method: message.method, params: message.params ?? {} }
  }
  return invalid("sent a message the wire does not know")
}

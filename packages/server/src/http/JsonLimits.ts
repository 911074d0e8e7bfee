/**
 * Limits every JSON request body must meet before anything parses or decodes it.
 *
 * - Nesting depth: no endpoint takes more than a few levels, while the code that walks a decoded
 *   document (schema decoding, the config merge patch, storage) recurses, so a 10,000-deep body
 *   would overflow the stack. One bound at the edge keeps every such walk safe.
 * - NUL (U+0000): PostgreSQL `text` and `jsonb` cannot hold it, so a NUL bound for storage fails
 *   deep in a query. No field of the API has a use for it; refusing it everywhere keeps SQLite
 *   and PostgreSQL servers answering alike.
 */
export const maxJsonDepth = 64

export type JsonBodyProblem = "too_deep" | "nul"

export const describeJsonBodyProblem = (problem: JsonBodyProblem): string =>
  problem === "too_deep"
    ? `request body nests too deeply (limit ${maxJsonDepth} levels)`
    : "request body must not contain NUL characters (\\u0000)"

const quote = 34
const backslash = 92
/** Strings shorter than this are walked character by character; longer ones are jumped through. */
const shortString = 32

/**
 * Scans raw JSON text once, iteratively (a recursive walk would itself overflow on the bodies it
 * guards against), for the first problem. Malformed JSON is left to the parser: this only has to
 * be right for text that parses. Long strings (a 20 MiB data URL) are skipped with `indexOf`, so
 * the scan costs a fraction of JSON.parse.
 */
export const checkJsonText = (text: string, limit: number = maxJsonDepth): JsonBodyProblem | undefined => {
  let depth = 0
  // The next backslash at or after the scan position: searched again only once passed, so a
  // text without any costs one search, not one per string.
  let nextEscape = -1
  let index = 0
  while (index < text.length) {
    const code = text.charCodeAt(index++)
    // `[` or `{`, then `]` or `}`.
    if (code === 91 || code === 123) {
      if (++depth > limit) return "too_deep"
    } else if (code === 93 || code === 125) {
      depth--
    } else if (code === quote) {
      // `index` walks the string to just past its closing quote.
      const walkUntil = Math.min(text.length, index + shortString)
      let closed = false
      while (index < walkUntil) {
        const char = text.charCodeAt(index++)
        if (char === quote) {
          closed = true
          break
        }
        if (char === backslash) {
          if (text.startsWith("u0000", index)) return "nul"
          index++
        }
      }
      while (!closed) {
        const end = text.indexOf('"', index)
        if (end === -1) return undefined
        if (nextEscape !== -2 && nextEscape < index) nextEscape = text.indexOf("\\", index)
        if (nextEscape === -1) nextEscape = -2 // none left in the text
        if (nextEscape === -2 || nextEscape > end) {
          index = end + 1
          closed = true
        } else {
          if (text.startsWith("u0000", nextEscape + 1)) return "nul"
          index = nextEscape + 2
        }
      }
    }
  }
  return undefined
}

/**
 * The path and query of a request URL must not carry an escaped NUL (`%00`) either: path
 * parameters are ids that end up in SQL. A raw NUL never arrives: Node's parser refuses it.
 */
export const urlHasNul = (url: string): boolean => /%00/.test(url)

// @ts-check
/**
 * A private copy of Telegram's Markdown splitter, until `splitMessage` lands in `@aide/plugin`
 * (issue 35, plan item 2): delete this file then and import it from there.
 */

/**
 * Cuts a string at most `limit` long, preferring the last space; never inside a surrogate pair.
 * @param {string} text
 * @param {number} limit
 */
const cut = (text, limit) => {
  const space = text.lastIndexOf(" ", limit - 1)
  let at = space > limit / 2 ? space + 1 : limit
  const code = text.charCodeAt(at - 1)
  if (code >= 0xd800 && code <= 0xdbff) at -= 1
  return at
}

/**
 * Splits Markdown into chunks of at most `limit` characters, at line ends where it can, else at
 * a space. A chunk that ends inside a code fence closes it and the next one reopens it, so each
 * chunk is valid Markdown on its own.
 * @param {string} markdown
 * @param {number} limit
 * @returns {string[]}
 */
export const splitMessage = (markdown, limit) => {
  /** @type {string[]} */
  const chunks = []
  let current = ""
  /** @type {string | null} the opening fence line we are inside of */
  let fence = null
  const reserve = () => (fence === null ? 0 : 4) // "\n```" to close a fence
  const flush = () => {
    const body = fence === null ? current : `${current.replace(/\n$/, "")}\n\`\`\``
    if (body.trim() !== "") chunks.push(body.replace(/\n+$/, ""))
    current = fence === null ? "" : `${fence}\n`
  }
  const lines = markdown.split("\n")
  lines.forEach((line, index) => {
    let piece = index < lines.length - 1 ? `${line}\n` : line
    while (current.length + piece.length + reserve() > limit) {
      const room = limit - current.length - reserve()
      // A line that fits in an empty chunk moves there whole; a longer one is cut.
      if (current.length > (fence === null ? 0 : fence.length + 1) && piece.length + reserve() <= limit) {
        flush()
        continue
      }
      const at = cut(piece, Math.max(room, 1))
      current += piece.slice(0, at)
      piece = piece.slice(at)
      flush()
    }
    current += piece
    if (/^\s*```/.test(line)) fence = fence === null ? line.trim() : null
  })
  if (current.trim() !== "" && current !== `${fence}\n`) {
    chunks.push(fence === null ? current : `${current.replace(/\n$/, "")}\n\`\`\``)
  }
  return chunks
}

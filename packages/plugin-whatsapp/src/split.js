// @ts-check
/**
 * A private copy of the splitting rule `@aide/plugin` is getting as `splitMessage` (issue 35, plan
 * item 2): delete it and import that one once it lands. Cuts on paragraph, then line, then word
 * boundaries; a cut inside a fenced code block closes the fence and the next chunk reopens it.
 */

/**
 * Where to cut `text` to keep at most `limit` characters: the last blank line past half the
 * limit, else the last line end, else the last space; never inside a surrogate pair.
 * @param {string} text
 * @param {number} limit
 */
const cutAt = (text, limit) => {
  const window = text.slice(0, limit + 1)
  for (const boundary of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(boundary)
    if (at > limit / 2) return at + boundary.length
  }
  const code = text.charCodeAt(limit - 1)
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit
}

/**
 * Chunks of at most `limit` characters that each read as valid Markdown on their own.
 * @param {string} text
 * @param {number} limit
 * @returns {string[]}
 */
export const splitMessage = (text, limit) => {
  if (text.length <= limit) return text.trim() === "" ? [] : [text]
  /** @type {string[]} */
  const chunks = []
  let rest = text
  /** @type {string | null} the fence line the next chunk reopens */
  let reopen = null
  while (rest.length > 0) {
    const head = reopen === null ? "" : `${reopen}\n`
    const room = limit - head.length - 4 // "\n```" to close a fence the cut falls in
    if (head.length + rest.length <= limit) {
      chunks.push(head + rest)
      break
    }
    const at = cutAt(rest, room)
    const piece = rest.slice(0, at)
    rest = rest.slice(at)
    // Is the cut inside a fence? Count the fence lines up to it, starting from the reopened one.
    /** @type {string | null} */
    let open = reopen
    for (const line of piece.split("\n")) {
      if (/^\s*```/.test(line)) open = open === null ? line.trim() : null
    }
    const body = (head + piece).replace(/\s+$/, "")
    chunks.push(open === null ? body : `${body}\n\`\`\``)
    reopen = open
    if (open === null) rest = rest.replace(/^\n+/, "")
  }
  return chunks.filter((chunk) => chunk.trim() !== "" && chunk.trim() !== "```")
}

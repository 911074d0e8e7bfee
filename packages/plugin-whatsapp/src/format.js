// @ts-check
/**
 * Markdown (what the assistant writes) to WhatsApp's formatting subset: `*bold*`, `_italic_`,
 * `~strike~`, `` `inline code` ``, ``` blocks ``` (kept), `> quotes`, `- bullets`; links become
 * `label (url)` (WhatsApp links bare URLs itself), headings bold lines. WhatsApp text is plain:
 * nothing to escape.
 */

/** A text message's body limit. */
export const MESSAGE_LIMIT = 4096

const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)|\*\*([^\n]+?)\*\*|__([^\n]+?)__|~~([^\n]+?)~~|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])/

/**
 * @param {string} text
 * @returns {string}
 */
const inline = (text) => {
  let out = ""
  let rest = text
  for (let match = INLINE.exec(rest); match !== null; match = INLINE.exec(rest)) {
    out += rest.slice(0, match.index)
    const [whole, code, label, href, bold, bold2, strike, italic, italic2] = match
    if (code !== undefined) out += `\`${code}\``
    else if (label !== undefined && href !== undefined) out += label === href ? href : `${inline(label)} (${href})`
    else if (bold !== undefined || bold2 !== undefined) out += `*${inline(bold ?? bold2 ?? "")}*`
    else if (strike !== undefined) out += `~${inline(strike)}~`
    else out += `_${inline(italic ?? italic2 ?? "")}_`
    rest = rest.slice(match.index + whole.length)
  }
  return out + rest
}

/**
 * @param {string} markdown
 * @returns {string}
 */
export const markdownToWhatsApp = (markdown) => {
  /** @type {string[]} */
  const out = []
  let inFence = false
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      out.push("```")
      inFence = !inFence
    } else if (inFence) out.push(line)
    else {
      const heading = /^#{1,6}\s+(.*)$/.exec(line)
      const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
      if (heading !== null) out.push(`*${inline(heading[1] ?? "")}*`)
      else if (bullet !== null) out.push(`${bullet[1] ?? ""}- ${inline(bullet[2] ?? "")}`)
      else out.push(inline(line))
    }
  }
  if (inFence) out.push("```")
  return out.join("\n")
}

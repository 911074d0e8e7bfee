// @ts-check
/**
 * Markdown (what the assistant writes) to Slack's mrkdwn: `*bold*`, `_italic_`, `~strike~`,
 * `` `code` ``, ``` fences ```, `<url|label>` links, quotes; headings become bold lines and
 * bullets `•`. Every piece of text has `&`, `<` and `>` escaped, so nothing the model writes can
 * become a mention (`<!channel>`) or a link Slack would parse.
 */

/**
 * Slack's advice for one message's `text` (it truncates at 40,000; see the README): replies are
 * split at this many characters of mrkdwn.
 */
export const MESSAGE_LIMIT = 4000

/** @param {string} text */
export const escapeMrkdwn = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Slack's own escapes, undone on the text of an inbound message. */
/** @param {string} text */
export const unescapeSlack = (text) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

// Earliest match wins; code first so nothing inside backticks is formatted.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)|\*\*([^\n]+?)\*\*|__([^\n]+?)__|~~([^\n]+?)~~|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])/

/**
 * @param {string} text
 * @returns {string}
 */
export const inlineToMrkdwn = (text) => {
  let out = ""
  let rest = text
  for (let match = INLINE.exec(rest); match !== null; match = INLINE.exec(rest)) {
    out += escapeMrkdwn(rest.slice(0, match.index))
    const [whole, code, label, href, bold, bold2, strike, italic, italic2] = match
    if (code !== undefined) out += `\`${escapeMrkdwn(code)}\``
    else if (label !== undefined && href !== undefined) {
      // `|` and `>` end a link's parts: escaped by percent-encoding in the URL, dropped in the label.
      const url = href.replace(/\|/g, "%7C").replace(/>/g, "%3E").replace(/</g, "%3C")
      out += `<${url}|${escapeMrkdwn(label.replace(/\|/g, "/"))}>`
    } else if (bold !== undefined || bold2 !== undefined) out += `*${inlineToMrkdwn(bold ?? bold2 ?? "")}*`
    else if (strike !== undefined) out += `~${inlineToMrkdwn(strike)}~`
    else out += `_${inlineToMrkdwn(italic ?? italic2 ?? "")}_`
    rest = rest.slice(match.index + whole.length)
  }
  return out + escapeMrkdwn(rest)
}

/**
 * Markdown to mrkdwn, line by line; fenced code blocks are kept (without their language, which
 * Slack would show as text) with only the escapes. An unclosed fence runs to the end.
 * @param {string} markdown
 * @returns {string}
 */
export const markdownToMrkdwn = (markdown) => {
  /** @type {string[]} */
  const out = []
  let inFence = false
  for (const line of markdown.split("\n")) {
    const fence = /^\s*```/.test(line)
    if (fence) {
      out.push("```")
      inFence = !inFence
    } else if (inFence) out.push(escapeMrkdwn(line))
    else {
      const heading = /^#{1,6}\s+(.*)$/.exec(line)
      const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
      const quote = /^>\s?(.*)$/.exec(line)
      if (heading !== null) out.push(`*${inlineToMrkdwn(heading[1] ?? "")}*`)
      else if (bullet !== null) out.push(`${bullet[1] ?? ""}• ${inlineToMrkdwn(bullet[2] ?? "")}`)
      else if (quote !== null) out.push(`> ${inlineToMrkdwn(quote[1] ?? "")}`)
      else out.push(inlineToMrkdwn(line))
    }
  }
  if (inFence) out.push("```")
  return out.join("\n")
}

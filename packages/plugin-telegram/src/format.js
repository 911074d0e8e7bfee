// @ts-check
/**
 * Markdown (what the assistant writes) to Telegram HTML (`parse_mode: "HTML"`), and the split of
 * long messages. The split happens on the Markdown, before formatting, so every chunk is
 * formatted on its own and no tag is ever cut; every piece of text is HTML-escaped. The split is
 * `splitMessage` of `@aide/plugin` (paragraphs, lines, words; code fences closed and reopened).
 */
import { splitMessage } from "@aide/plugin"

/** Telegram's limit: 4,096 characters of a message's text after entities are parsed. */
export const MESSAGE_LIMIT = 4096

/** @param {string} text */
export const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** @param {string} text */
const escapeAttribute = (text) => escapeHtml(text).replace(/"/g, "&quot;")

// Earliest match wins; code first so nothing inside backticks is formatted.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|tg:\/\/)[^\s)]+)\)|\*\*([^\n]+?)\*\*|__([^\n]+?)__|~~([^\n]+?)~~|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])/

/**
 * Inline Markdown to HTML: code, links, bold, italic, strikethrough; the rest is escaped text.
 * @param {string} text
 * @returns {string}
 */
export const inlineToHtml = (text) => {
  let html = ""
  let rest = text
  for (let match = INLINE.exec(rest); match !== null; match = INLINE.exec(rest)) {
    html += escapeHtml(rest.slice(0, match.index))
    const [whole, code, label, href, bold, bold2, strike, italic, italic2] = match
    if (code !== undefined) html += `<code>${escapeHtml(code)}</code>`
    else if (label !== undefined && href !== undefined)
      html += `<a href="${escapeAttribute(href)}">${inlineToHtml(label)}</a>`
    else if (bold !== undefined || bold2 !== undefined) html += `<b>${inlineToHtml(bold ?? bold2 ?? "")}</b>`
    else if (strike !== undefined) html += `<s>${inlineToHtml(strike)}</s>`
    else html += `<i>${inlineToHtml(italic ?? italic2 ?? "")}</i>`
    rest = rest.slice(match.index + whole.length)
  }
  return html + escapeHtml(rest)
}

/**
 * Markdown to Telegram HTML: fenced code blocks, headings (bold), bullets, inline formatting.
 * An unclosed fence runs to the end of the text.
 * @param {string} markdown
 * @returns {string}
 */
export const markdownToHtml = (markdown) => {
  /** @type {string[]} */
  const out = []
  /** @type {{ language: string, lines: string[] } | null} */
  let fence = null
  const closeFence = () => {
    if (fence === null) return
    const language = fence.language === "" ? "" : ` class="language-${escapeAttribute(fence.language)}"`
    out.push(`<pre><code${language}>${escapeHtml(fence.lines.join("\n"))}</code></pre>`)
    fence = null
  }
  for (const line of markdown.split("\n")) {
    const opener = /^\s*```\s*([\w+#.-]*)\s*$/.exec(line)
    if (fence !== null) {
      if (opener !== null && opener[1] === "") closeFence()
      else fence.lines.push(line)
    } else if (opener !== null) fence = { language: opener[1] ?? "", lines: [] }
    else {
      const heading = /^#{1,6}\s+(.*)$/.exec(line)
      const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
      if (heading !== null) out.push(`<b>${inlineToHtml(heading[1] ?? "")}</b>`)
      else if (bullet !== null) out.push(`${bullet[1] ?? ""}• ${inlineToHtml(bullet[2] ?? "")}`)
      else out.push(inlineToHtml(line))
    }
  }
  closeFence()
  return out.join("\n")
}

/**
 * Markdown to the HTML texts of the messages that carry it, each within Telegram's limit.
 * @param {string} markdown
 */
export const toTelegramMessages = (markdown) => splitMessage(markdown, MESSAGE_LIMIT).map(markdownToHtml)

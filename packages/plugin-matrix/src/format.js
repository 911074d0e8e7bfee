// @ts-check
/**
 * Markdown (what the assistant writes) to a Matrix `m.room.message`: `body` keeps the Markdown
 * as plain text (what clients without HTML show, and what the spec requires beside an HTML
 * body), `formatted_body` is HTML with `format: "org.matrix.custom.html"`, in the tags the spec
 * allows (`content/client-server-api/modules/instant_messaging.md`): p, br, strong, em, del,
 * code, pre, a, h1–h6, ul, ol, li, blockquote. Every piece of text is HTML-escaped.
 */
import { splitMessage } from "@aide/plugin"

/**
 * Characters of Markdown per message. Matrix bounds a whole event at 65,536 bytes; the body and
 * its HTML both count, so 6,000 characters stay under it even for 4-byte characters.
 */
export const MESSAGE_LIMIT = 6000

/** @param {string} text */
export const escapeHtml = (text) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

// Earliest match wins; code first so nothing inside backticks is formatted.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:|matrix:)[^\s)]+)\)|\*\*([^\n]+?)\*\*|__([^\n]+?)__|~~([^\n]+?)~~|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])/

/**
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
      html += `<a href="${escapeHtml(href)}">${inlineToHtml(label)}</a>`
    else if (bold !== undefined || bold2 !== undefined) html += `<strong>${inlineToHtml(bold ?? bold2 ?? "")}</strong>`
    else if (strike !== undefined) html += `<del>${inlineToHtml(strike)}</del>`
    else html += `<em>${inlineToHtml(italic ?? italic2 ?? "")}</em>`
    rest = rest.slice(match.index + whole.length)
  }
  return html + escapeHtml(rest)
}

/**
 * Markdown to Matrix HTML: fenced code, headings, bullet and numbered lists, quotes, paragraphs
 * (lines inside one joined with `<br>`). An unclosed fence runs to the end.
 * @param {string} markdown
 * @returns {string}
 */
export const markdownToHtml = (markdown) => {
  /** @type {string[]} */
  const out = []
  /** @type {string[]} */
  let paragraph = []
  /** @type {{ tag: "ul" | "ol" | "blockquote", items: string[] } | null} */
  let block = null
  /** @type {{ language: string, lines: string[] } | null} */
  let fence = null
  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inlineToHtml).join("<br>")}</p>`)
    paragraph = []
  }
  const flushBlock = () => {
    if (block === null) return
    if (block.tag === "blockquote") out.push(`<blockquote>${block.items.map(inlineToHtml).join("<br>")}</blockquote>`)
    else
      out.push(`<${block.tag}>${block.items.map((item) => `<li>${inlineToHtml(item)}</li>`).join("")}</${block.tag}>`)
    block = null
  }
  /** @param {"ul" | "ol" | "blockquote"} tag @param {string} item */
  const addTo = (tag, item) => {
    flushParagraph()
    if (block?.tag !== tag) flushBlock()
    block ??= { tag, items: [] }
    block.items.push(item)
  }
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(?:```|~~~)\s*([\w+#.-]*)\s*$/.exec(line)
    if (fence !== null) {
      if (opener !== null && opener[1] === "") {
        const language = fence.language === "" ? "" : ` class="language-${escapeHtml(fence.language)}"`
        out.push(`<pre><code${language}>${escapeHtml(fence.lines.join("\n"))}</code></pre>`)
        fence = null
      } else fence.lines.push(line)
      continue
    }
    if (opener !== null) {
      flushParagraph()
      flushBlock()
      fence = { language: opener[1] ?? "", lines: [] }
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line)
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line)
    const quote = /^\s*>\s?(.*)$/.exec(line)
    if (heading !== null) {
      flushParagraph()
      flushBlock()
      const level = heading[1]?.length ?? 1
      out.push(`<h${level}>${inlineToHtml(heading[2] ?? "")}</h${level}>`)
    } else if (bullet !== null) addTo("ul", bullet[1] ?? "")
    else if (numbered !== null) addTo("ol", numbered[1] ?? "")
    else if (quote !== null) addTo("blockquote", quote[1] ?? "")
    else if (line.trim() === "") {
      flushParagraph()
      flushBlock()
    } else {
      flushBlock()
      paragraph.push(line)
    }
  }
  if (fence !== null) {
    const open = /** @type {{ language: string, lines: string[] }} */ (fence)
    out.push(`<pre><code>${escapeHtml(open.lines.join("\n"))}</code></pre>`)
  }
  flushParagraph()
  flushBlock()
  return out.join("")
}

/**
 * The contents of the messages that carry a Markdown text, split first (on line and fence
 * boundaries), each then converted on its own so no tag is ever cut.
 * @param {string} markdown
 * @param {number} [limit]
 */
export const toMatrixContents = (markdown, limit = MESSAGE_LIMIT) =>
  splitMessage(markdown, limit).map((chunk) => ({
    msgtype: "m.notice",
    body: chunk,
    format: "org.matrix.custom.html",
    formatted_body: markdownToHtml(chunk),
  }))

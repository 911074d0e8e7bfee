// @ts-check
/**
 * Markdown (what the assistant writes) to the HTML alternative of a mail. The plain-text part is
 * the Markdown itself, which reads well as text; the HTML part renders paragraphs, headings,
 * lists, quotes, fenced code blocks (kept verbatim in <pre>), inline code, bold, italic,
 * strikethrough and links. Every piece of text is escaped: the author's "<b>" stays text.
 */

/** @param {string} text */
export const escapeHtml = (text) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

// Earliest match wins; code first so nothing inside backticks is formatted.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)|\*\*([^\n]+?)\*\*|__([^\n]+?)__|~~([^\n]+?)~~|(?<![\w*])\*([^*\n]+)\*(?![\w*])|(?<![\w_])_([^_\n]+)_(?![\w_])/

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
    else if (strike !== undefined) html += `<s>${inlineToHtml(strike)}</s>`
    else html += `<em>${inlineToHtml(italic ?? italic2 ?? "")}</em>`
    rest = rest.slice(match.index + whole.length)
  }
  return html + escapeHtml(rest)
}

const PRE = 'style="background:#f6f8fa;padding:8px;border-radius:4px;overflow-x:auto"'

/**
 * Markdown to an HTML fragment. An unclosed fence runs to the end of the text.
 * @param {string} markdown
 * @returns {string}
 */
export const markdownToHtml = (markdown) => {
  /** @type {string[]} */
  const out = []
  /** @type {string[]} */
  let paragraph = []
  /** @type {{ tag: "ul" | "ol", items: string[] } | null} */
  let list = null
  /** @type {{ language: string, lines: string[] } | null} */
  let fence = null
  const flush = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inlineToHtml).join("<br>\n")}</p>`)
    paragraph = []
    if (list !== null) out.push(`<${list.tag}>${list.items.map((item) => `<li>${item}</li>`).join("")}</${list.tag}>`)
    list = null
  }
  for (const line of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const opener = /^\s*```\s*([\w+#.-]*)\s*$/.exec(line)
    if (fence !== null) {
      if (opener !== null && opener[1] === "") {
        const language = fence.language === "" ? "" : ` class="language-${escapeHtml(fence.language)}"`
        out.push(`<pre ${PRE}><code${language}>${escapeHtml(fence.lines.join("\n"))}</code></pre>`)
        fence = null
      } else fence.lines.push(line)
      continue
    }
    if (opener !== null) {
      flush()
      fence = { language: opener[1] ?? "", lines: [] }
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line)
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line)
    const quote = /^\s*>\s?(.*)$/.exec(line)
    if (line.trim() === "") flush()
    else if (heading !== null) {
      flush()
      const level = heading[1]?.length ?? 1
      out.push(`<h${level}>${inlineToHtml(heading[2] ?? "")}</h${level}>`)
    } else if (bullet !== null || numbered !== null) {
      const tag = bullet !== null ? "ul" : "ol"
      if (paragraph.length > 0 || (list !== null && list.tag !== tag)) flush()
      list ??= { tag, items: [] }
      list.items.push(inlineToHtml((bullet ?? numbered)?.[1] ?? ""))
    } else if (quote !== null) {
      flush()
      out.push(`<blockquote>${inlineToHtml(quote[1] ?? "")}</blockquote>`)
    } else {
      if (list !== null) flush()
      paragraph.push(line)
    }
  }
  if (fence !== null) {
    out.push(
      `<pre ${PRE}><code>${escapeHtml(/** @type {{ lines: string[] }} */ (fence).lines.join("\n"))}</code></pre>`,
    )
  }
  flush()
  return out.join("\n")
}

/**
 * A whole HTML document for a mail's HTML part.
 * @param {string} fragment
 */
export const htmlDocument = (fragment) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body style="font-family:sans-serif;line-height:1.4">\n${fragment}\n</body></html>`

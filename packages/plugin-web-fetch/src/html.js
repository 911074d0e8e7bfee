// @ts-check
/**
 * HTML to readable plain text, with nothing but the language: it runs in a SES compartment
 * (no DOM, no Node built-ins). Good enough for reading pages, not a browser.
 */

/** @type {Record<string, string>} */
const NAMED = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
  trade: "™",
  middot: "·",
  bull: "•",
  euro: "€",
}

/** @param {number} code */
const fromCodePoint = (code) => (code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD")

/** @param {string} text */
export const decodeEntities = (text) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, name) => {
    const lower = name.toLowerCase()
    if (lower.startsWith("#x")) return fromCodePoint(Number.parseInt(lower.slice(2), 16))
    if (lower.startsWith("#")) return fromCodePoint(Number.parseInt(lower.slice(1), 10))
    return NAMED[name] ?? NAMED[lower] ?? whole
  })

/** @param {string} text */
const collapse = (text) =>
  text
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\r\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

const HIDDEN = /<(script|style|noscript|template|svg|iframe|object|canvas|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi
const BLOCK =
  /<\/?(p|div|br|hr|li|ul|ol|dl|dt|dd|h[1-6]|tr|table|thead|tbody|section|article|aside|header|footer|nav|main|blockquote|pre|figure|figcaption|form)\b[^>]*>/gi

/**
 * The page's title and its text.
 * @param {string} html
 * @returns {{ title: string, text: string }}
 */
export const htmlToText = (html) => {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1] ?? ""
  const body = html
    // Spelled "-{2}": SES refuses any source text that looks like an HTML comment, regexes included.
    .replace(/<!-{2}[\s\S]*?-{2}>/g, " ")
    .replace(HIDDEN, " ")
    .replace(/<li\b[^>]*>/gi, "\n• ")
    .replace(BLOCK, "\n")
    .replace(/<[^>]*>/g, " ")
  return { title: collapse(decodeEntities(title)).replace(/\n/g, " "), text: collapse(decodeEntities(body)) }
}

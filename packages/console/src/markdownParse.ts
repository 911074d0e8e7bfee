import { Marked, type Token, type TokenizerExtension, type Tokens } from "marked"

/**
 * GitHub-flavoured Markdown (what chat answers use: tables, task lists, autolinks, strikethrough,
 * intra-word underscores kept literal) read by marked's lexer into tokens, which `markdown.tsx`
 * renders as React elements: never to HTML strings. HTML in the text stays text.
 */
export type { Token, Tokens }

/** Only these schemes become links; `javascript:` and friends stay text. */
export const safeHref = (href: string): string | undefined => {
  const trimmed = href.trim()
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : undefined
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" }

/** Character references in text (`&amp;`, `&#39;`): marked leaves them for an HTML renderer to resolve. */
export const decodeEntities = (text: string): string =>
  text.includes("&")
    ? text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
        if (name[0] !== "#") return entities[name.toLowerCase()] ?? whole
        const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
        return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole
      })
    : text

/**
 * Math, as answers write it: `$$…$$` and `\[…\]` (display), `\(…\)` (inline). A single `$` is
 * not a delimiter ("$5 and $10" stays text); inside code spans and code blocks nothing is math.
 * Unclosed (still streaming), it is text until its closing delimiter arrives.
 */
export interface MathToken {
  readonly type: "math" | "inlineMath"
  readonly raw: string
  readonly text: string
  readonly display: boolean
}

const blockMath: TokenizerExtension = {
  name: "math",
  level: "block",
  // Only at the start of a line: a paragraph is not cut at a `$$` inside it (a code span's).
  start: (src) => {
    const at = /(?:^|\n)[ \t]*(?:\$\$|\\\[)/.exec(src)
    return at === null ? undefined : at.index + (at[0].startsWith("\n") ? 1 : 0)
  },
  tokenizer: (src) => {
    const match = /^[ \t]*(?:\$\$((?:(?!\$\$)[\s\S])+?)\$\$|\\\[((?:(?!\\\])[\s\S])+?)\\\])[ \t]*(?:\n+|$)/.exec(src)
    if (match === null) return undefined
    return { type: "math", raw: match[0], text: (match[1] ?? match[2] ?? "").trim(), display: true }
  },
}

const inlineMath: TokenizerExtension = {
  name: "inlineMath",
  level: "inline",
  start: (src) => /\$\$|\\\(/.exec(src)?.index,
  tokenizer: (src) => {
    const match = /^(?:\$\$([\s\S]+?)\$\$|\\\(([\s\S]+?)\\\))/.exec(src)
    if (match === null) return undefined
    return {
      type: "inlineMath",
      raw: match[0],
      text: (match[1] ?? match[2] ?? "").trim(),
      display: match[1] !== undefined,
    }
  },
}

const marked = new Marked({ gfm: true, breaks: true, extensions: [blockMath, inlineMath] })

/** Blocks of `text`; an unterminated code fence (still streaming) is a code block to the end. */
export const parseMarkdown = (text: string): Array<Token> => marked.lexer(text)

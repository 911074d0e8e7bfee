import { Lexer, type Token, type Tokens } from "marked"

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

/** Blocks of `text`; an unterminated code fence (still streaming) is a code block to the end. */
export const parseMarkdown = (text: string): Array<Token> => new Lexer({ gfm: true, breaks: true }).lex(text)

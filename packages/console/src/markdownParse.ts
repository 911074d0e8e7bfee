/** A small Markdown subset (what chat answers use), parsed to a tree: never to HTML strings. */
export type Inline =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "code"; readonly text: string }
  | { readonly type: "strong"; readonly children: ReadonlyArray<Inline> }
  | { readonly type: "em"; readonly children: ReadonlyArray<Inline> }
  | { readonly type: "link"; readonly href: string; readonly children: ReadonlyArray<Inline> }
  | { readonly type: "break" }

export type Block =
  | { readonly type: "code"; readonly lang: string; readonly code: string }
  | { readonly type: "heading"; readonly level: number; readonly content: ReadonlyArray<Inline> }
  | { readonly type: "list"; readonly ordered: boolean; readonly items: ReadonlyArray<ReadonlyArray<Inline>> }
  | { readonly type: "quote"; readonly content: ReadonlyArray<Inline> }
  | { readonly type: "rule" }
  | { readonly type: "paragraph"; readonly content: ReadonlyArray<Inline> }

/** Only these schemes become links; `javascript:` and friends stay text. */
export const safeHref = (href: string): string | undefined => {
  const trimmed = href.trim()
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : undefined
}

const inlinePattern =
  /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|\[([^\]]+)\]\(([^)\s]+)\)|\n/g

export const parseInline = (text: string): Array<Inline> => {
  const nodes: Array<Inline> = []
  let last = 0
  for (const match of text.matchAll(inlinePattern)) {
    const index = match.index ?? 0
    if (index > last) nodes.push({ type: "text", text: text.slice(last, index) })
    last = index + match[0].length
    const [whole, code, strong1, strong2, em1, em2, label, href] = match
    if (code !== undefined) nodes.push({ type: "code", text: code })
    else if (strong1 !== undefined || strong2 !== undefined)
      nodes.push({ type: "strong", children: parseInline(strong1 ?? strong2 ?? "") })
    else if (em1 !== undefined || em2 !== undefined) nodes.push({ type: "em", children: parseInline(em1 ?? em2 ?? "") })
    else if (label !== undefined && href !== undefined) {
      const safe = safeHref(href)
      nodes.push(
        safe === undefined ? { type: "text", text: whole } : { type: "link", href: safe, children: parseInline(label) },
      )
    } else nodes.push({ type: "break" })
  }
  if (last < text.length) nodes.push({ type: "text", text: text.slice(last) })
  return nodes
}

/** Blocks of `text`; an unterminated code fence (still streaming) is a code block to the end. */
export const parseMarkdown = (text: string): Array<Block> => {
  const lines = text.replace(/\r\n?/g, "\n").split("\n")
  const blocks: Array<Block> = []
  let paragraph: Array<string> = []
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ type: "paragraph", content: parseInline(paragraph.join("\n")) })
    paragraph = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ""
    const fence = /^\s*```\s*([\w+-]*)/.exec(line)
    if (fence !== null) {
      flush()
      const code: Array<string> = []
      i++
      while (i < lines.length && !/^\s*```\s*$/.test(lines[i] ?? "")) code.push(lines[i++] ?? "")
      blocks.push({ type: "code", lang: fence[1] ?? "", code: code.join("\n") })
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading !== null) {
      flush()
      blocks.push({ type: "heading", level: heading[1]!.length, content: parseInline(heading[2] ?? "") })
      continue
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush()
      blocks.push({ type: "rule" })
      continue
    }
    const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line)
    if (item !== null) {
      flush()
      const ordered = /\d/.test(item[1] ?? "")
      const items: Array<Array<Inline>> = [parseInline(item[2] ?? "")]
      while (i + 1 < lines.length) {
        const next = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i + 1] ?? "")
        if (next === null || /\d/.test(next[1] ?? "") !== ordered) break
        items.push(parseInline(next[2] ?? ""))
        i++
      }
      blocks.push({ type: "list", ordered, items })
      continue
    }
    if (line.startsWith(">")) {
      flush()
      const quoted = [line.replace(/^>\s?/, "")]
      while (i + 1 < lines.length && (lines[i + 1] ?? "").startsWith(">"))
        quoted.push((lines[++i] ?? "").replace(/^>\s?/, ""))
      blocks.push({ type: "quote", content: parseInline(quoted.join("\n")) })
      continue
    }
    if (line.trim() === "") flush()
    else paragraph.push(line)
  }
  flush()
  return blocks
}

import { describe, expect, it } from "vitest"
import { decodeEntities, parseMarkdown, safeHref, type Token } from "../src/markdownParse.js"

/** Every token of a tree, depth first (tables' cells and lists' items included). */
const all = (tokens: ReadonlyArray<Token>): Array<Token> =>
  tokens.flatMap((token: any) => [
    token,
    ...all(token.tokens ?? []),
    ...all(token.items ?? []),
    ...all((token.header ?? []).flatMap((cell: any) => cell.tokens)),
    ...all((token.rows ?? []).flat().flatMap((cell: any) => cell.tokens)),
  ])

const types = (text: string) => all(parseMarkdown(text)).map((token) => token.type)

describe("the markdown renderer's parser (GitHub-flavoured, marked's lexer)", () => {
  it("never makes a link of a javascript: URL", () => {
    expect(safeHref("javascript:alert(1)")).toBeUndefined()
    expect(safeHref(" https://example.com ")).toBe("https://example.com")
  })

  it("keeps underscores inside words literal: tool names are not emphasis", () => {
    for (const text of ["current_time,notify,update_working_memory", "call word-tools_count_words now"]) {
      expect(types(text)).not.toContain("em")
      const paragraph = parseMarkdown(text)[0] as any
      expect(paragraph.tokens.map((token: any) => token.text).join("")).toBe(text)
    }
    expect(types("an *emphasis* and _this_ too").filter((type) => type === "em")).toHaveLength(2)
  })

  it("reads tables, task lists, autolinks and strikethrough", () => {
    const table = parseMarkdown("| a | b |\n|---|:-:|\n| 1 | 2 |")[0] as any
    expect(table.type).toBe("table")
    expect(table.align).toEqual([null, "center"])
    expect(table.rows[0].map((cell: any) => cell.text)).toEqual(["1", "2"])
    const list = parseMarkdown("- [x] done\n- [ ] todo")[0] as any
    expect(list.items.map((item: any) => [item.task, item.checked])).toEqual([
      [true, true],
      [true, false],
    ])
    const links = all(parseMarkdown("see https://example.com/x_y. and www.example.org")).filter(
      (token) => token.type === "link",
    ) as Array<any>
    expect(links.map((link) => link.href)).toEqual(["https://example.com/x_y", "http://www.example.org"])
    expect(types("~~gone~~")).toContain("del")
  })

  it("keeps HTML as an html token, which the renderer shows as text", () => {
    expect(types("<img src=x onerror=alert(1)>")).toEqual(["html"])
  })

  it("reads fenced code, headings, lists and inline styles", () => {
    const blocks = parseMarkdown("# Title\n\n- **a**\n- `b`\n\n```ts\nconst x = 1\n```").filter(
      (token) => token.type !== "space",
    )
    expect(blocks.map((block) => block.type)).toEqual(["heading", "list", "code"])
    expect(blocks[2]).toMatchObject({ type: "code", lang: "ts", text: "const x = 1" })
  })

  it("treats an unterminated fence (an answer still streaming) as code to the end", () => {
    expect([...parseMarkdown("```py\nprint(1)")]).toMatchObject([{ type: "code", lang: "py", text: "print(1)" }])
  })

  it("resolves character references in text", () => {
    expect(decodeEntities("a &amp; b &lt;c&gt; &#39;d&#39; &#x263A; &bogus;")).toBe("a & b <c> 'd' ☺ &bogus;")
  })

  it("reads math: $$…$$ and […] as display, (…) inline; a lone $ and code are not math; unclosed, text", () => {
    const math = (text: string) =>
      all(parseMarkdown(text))
        .filter((token) => token.type === "math" || token.type === "inlineMath")
        .map((token: any) => ({ type: token.type, text: token.text, display: token.display }))
    expect(math("$$\n\\frac{a_1}{b}\n$$\n\nAfter")).toEqual([{ type: "math", text: "\\frac{a_1}{b}", display: true }])
    expect(math("Euler: \\(e^{i\\pi} + 1 = 0\\), and $$x^2$$ too")).toEqual([
      { type: "inlineMath", text: "e^{i\\pi} + 1 = 0", display: false },
      { type: "inlineMath", text: "x^2", display: true },
    ])
    expect(math("\\[\na*b*c\n\\]")).toEqual([{ type: "math", text: "a*b*c", display: true }])
    // Underscores and asterisks inside math are not emphasis.
    expect(types("\\(a_1 * b_2 * c\\)")).not.toContain("em")
    expect(math("It costs $5 and $10.")).toEqual([])
    expect(math("`$$x$$` and\n\n```\n$$y$$\n```")).toEqual([])
    expect(math("Streaming $$\\frac{1}{")).toEqual([])
  })
})

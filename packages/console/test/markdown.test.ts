import { describe, expect, it } from "vitest"
import { parseInline, parseMarkdown, safeHref } from "../src/markdownParse.js"

describe("the markdown renderer's parser", () => {
  it("never makes a link of a javascript: URL", () => {
    expect(safeHref("javascript:alert(1)")).toBeUndefined()
    const nodes = parseInline("[x](javascript:alert(1))")
    expect(nodes.every((node) => node.type === "text")).toBe(true)
    expect(nodes.map((node) => (node.type === "text" ? node.text : "")).join("")).toBe("[x](javascript:alert(1))")
  })

  it("keeps HTML as text (there is no HTML node at all)", () => {
    expect(parseMarkdown("<img src=x onerror=alert(1)>")).toEqual([
      { type: "paragraph", content: [{ type: "text", text: "<img src=x onerror=alert(1)>" }] },
    ])
  })

  it("reads fenced code, headings, lists and inline styles", () => {
    const blocks = parseMarkdown("# Title\n\n- **a**\n- `b`\n\n```ts\nconst x = 1\n```")
    expect(blocks.map((block) => block.type)).toEqual(["heading", "list", "code"])
    expect(blocks[2]).toEqual({ type: "code", lang: "ts", code: "const x = 1" })
  })

  it("treats an unterminated fence (an answer still streaming) as code to the end", () => {
    expect(parseMarkdown("```py\nprint(1)")).toEqual([{ type: "code", lang: "py", code: "print(1)" }])
  })
})

import { describe, expect, it } from "vitest"
import { splitMessage } from "../src/index.js"

const paragraph = (word: string, count: number) => Array.from({ length: count }, () => word).join(" ")

describe("splitMessage", () => {
  it("keeps a short message whole, and gives nothing for blank text", () => {
    expect(splitMessage("Hello **there**.\n\nBye.", 100)).toEqual(["Hello **there**.\n\nBye."])
    expect(splitMessage("  \n\n ", 100)).toEqual([])
  })

  it("cuts between paragraphs first, joining those that fit", () => {
    const a = paragraph("alpha", 10) // 59
    const b = paragraph("beta", 10) // 49
    const c = paragraph("gamma", 5) // 29
    expect(splitMessage(`${a}\n\n${b}\n\n\n${c}`, 90)).toEqual([a, `${b}\n\n${c}`])
  })

  it("then between lines, then between words; a word longer than the limit is cut", () => {
    const text = `${paragraph("one", 5)}\n${paragraph("two", 5)}\n${"x".repeat(25)}`
    const chunks = splitMessage(text, 20)
    expect(chunks).toEqual(["one one one one one", "two two two two two", "x".repeat(20), "x".repeat(5)])
    const long = paragraph("word", 30)
    for (const chunk of splitMessage(long, 42)) {
      expect(chunk.length).toBeLessThanOrEqual(42)
      expect(chunk.startsWith(" ") || chunk.endsWith(" ")).toBe(false)
    }
    expect(splitMessage(long, 42).join(" ")).toBe(long)
  })

  it("never cuts inside a fenced code block that fits, even if prose must move", () => {
    const code = "```ts\nconst a = 1\nconst b = 2\n```"
    const text = `${paragraph("intro", 8)}\n\n${code}\n\nAfter.`
    const chunks = splitMessage(text, 60)
    expect(chunks).toContain(`${code}\n\nAfter.`)
    expect(chunks.every((chunk) => chunk.length <= 60)).toBe(true)
  })

  it("a code block longer than the limit is closed and reopened with the same fence", () => {
    const body = Array.from({ length: 30 }, (_, index) => `line ${index}`).join("\n")
    const text = `~~~~python\n${body}\n~~~~`
    const chunks = splitMessage(text, 80)
    expect(chunks.length).toBeGreaterThan(1)
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(80)
      expect(chunk.startsWith("~~~~python\n")).toBe(true)
      expect(chunk.endsWith("\n~~~~")).toBe(true)
    }
    const rejoined = chunks.map((chunk) => chunk.slice("~~~~python\n".length, -"\n~~~~".length)).join("\n")
    expect(rejoined).toBe(body)
  })

  it("an unclosed fence is closed in every piece; an inner shorter fence does not close it", () => {
    const text = `\`\`\`\`md\n\`\`\`\ninner\n\`\`\`\n${"z".repeat(50)}`
    const chunks = splitMessage(text, 30)
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(30)
      expect(chunk.startsWith("````md\n")).toBe(true)
      expect(chunk.endsWith("\n````")).toBe(true)
    }
  })

  it("never splits a surrogate pair, and keeps every chunk within the limit at platform sizes", () => {
    expect(splitMessage("😀😀😀", 3)).toEqual(["😀", "😀", "😀"])
    const mixed = Array.from({ length: 200 }, (_, index) =>
      index % 7 === 0 ? `\`\`\`\n${"code ".repeat(index)}\n\`\`\`` : paragraph(`w${index}`, index % 40),
    ).join("\n\n")
    for (const limit of [2000, 4096]) {
      const chunks = splitMessage(mixed, limit)
      expect(chunks.every((chunk) => chunk.length <= limit && chunk.length > 0)).toBe(true)
      expect(chunks.join("").replace(/\s|`/g, "")).toBe(mixed.replace(/\s|`/g, ""))
    }
    expect(() => splitMessage("x", 0)).toThrow(RangeError)
  })
})

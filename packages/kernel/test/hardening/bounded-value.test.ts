import { describe, expect, it } from "vitest"
import {
  boundedOutput,
  boundedParts,
  deepMarker,
  maxOutputBytes,
  maxOutputDepth,
  maxPartDepth,
} from "../../src/tools/BoundedValue.js"

/** Issue 20, finding 3: tool outputs and stored parts are bounded before storing. */
const nest = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let level = 0; level < depth; level++) value = { next: value }
  return value
}

const depthOf = (value: unknown): number => {
  let depth = 0
  let current = value
  while (typeof current === "object" && current !== null) {
    depth++
    current = (current as { next?: unknown }).next
  }
  return depth
}

describe("BoundedValue", () => {
  it("keeps an output within the bounds as it is", () => {
    const output = { rows: [{ id: 1, name: "a" }], nested: nest(maxOutputDepth - 2) }
    expect(boundedOutput(output)).toEqual(output)
  })

  it("replaces what lies deeper than the bound by a marker, even 100,000 levels down", () => {
    const bounded = boundedOutput(nest(100_000))
    expect(depthOf(bounded)).toBe(maxOutputDepth)
    expect(JSON.stringify(bounded)).toContain(deepMarker(maxOutputDepth))
  })

  it("turns an over-size output into a marker with a preview", () => {
    const bounded = boundedOutput({ text: "x".repeat(maxOutputBytes + 10) })
    expect(typeof bounded).toBe("string")
    expect(bounded as string).toMatch(/^\[tool output of \d+ characters cut to its first 16384\] \{"text":"xxx/)
    expect((bounded as string).length).toBeLessThan(17_000)
  })

  it("makes plain JSON of what JSON cannot hold or a walk would trip on", () => {
    expect(boundedOutput({ big: 10n, nan: Number.NaN, skip: undefined, at: new Date(0) })).toEqual({
      big: "10",
      nan: null,
      at: "1970-01-01T00:00:00.000Z",
    })
  })

  it("leaves a clean parts array untouched (same array), and bounds a deep part", () => {
    const parts = [
      { type: "text", text: "hi" },
      { type: "tool-x", output: { a: 1 } },
    ]
    expect(boundedParts(parts)).toBe(parts)
    const deep = [{ type: "tool-x", output: nest(5_000) }]
    const bounded = boundedParts(deep)
    expect(bounded).not.toBe(deep)
    expect(depthOf((bounded[0] as { output: unknown }).output)).toBe(maxPartDepth - 1)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { mergePatch, pathDeeperThan } from "../../src/config/MergePatch.js"

/** Issue 9, item 1: no document, however deep, overflows the stack of a config walk. */

const nested = (depth: number) => {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = { a: value }
  return value
}

describe("config walks on deep documents", () => {
  it("mergePatch merges documents 100,000 levels deep without overflowing the stack", () => {
    const deep = nested(100_000)
    const merged = mergePatch({ a: { b: 2 } }, deep) as { a: { a: unknown; b: number } }
    expect(merged.a.b).toBe(2)
    expect(pathDeeperThan(mergePatch(deep, { a: null }), 1)).toBeUndefined()
  })

  it("pathDeeperThan names the path to the first value past the limit, at any depth", () => {
    expect(pathDeeperThan(nested(100_000), 3)).toEqual(["a", "a", "a"])
    expect(pathDeeperThan({ x: [[1]] }, 3)).toBeUndefined()
    expect(pathDeeperThan({ x: [[[1]]] }, 3)).toEqual(["x", "0", "0"])
  })
})

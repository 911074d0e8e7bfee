import * as Sdk from "@aide/plugin"
import { describe, expect, it } from "vitest"

// The copy of @aide/plugin's runtime a sandboxed plugin imports (runtime/sdk/aide-plugin.mjs):
// the same exports as the package, each returning what it is given.
const copyUrl = new URL("../../runtime/sdk/aide-plugin.mjs", import.meta.url).href

describe("the SDK copy served to compartments", () => {
  it("has the package's runtime exports, with the same behaviour", async () => {
    const copy: Record<string, unknown> = await import(copyUrl)
    expect(Object.keys(copy).sort()).toEqual(Object.keys(Sdk).sort())
    const value = { id: "x" }
    for (const [name, helper] of Object.entries(Sdk)) {
      expect(typeof copy[name]).toBe("function")
      if (name === "splitMessage") continue
      expect((copy[name] as (value: unknown) => unknown)(value)).toBe((helper as (value: unknown) => unknown)(value))
    }
  })

  it("splits messages as the package does", async () => {
    const copy = (await import(copyUrl)) as typeof Sdk
    const code = Array.from({ length: 80 }, (_, i) => `line ${i} of the block`).join("\n")
    const samples = [
      "short",
      `${"A paragraph of words. ".repeat(40)}\n\n${"Another one here. ".repeat(40)}`,
      `intro\n\n\`\`\`ts\n${code}\n\`\`\`\n\nafter`,
      "x".repeat(2500),
    ]
    for (const text of samples) {
      for (const limit of [100, 500, 1000])
        expect(copy.splitMessage(text, limit)).toEqual(Sdk.splitMessage(text, limit))
    }
  })
})

import { readFileSync } from "node:fs"
import * as Sdk from "@aide/plugin"
import { describe, expect, it } from "vitest"
import { generated } from "../../../../scripts/generate-sdk-split.mjs"

// The copy of @aide/plugin's runtime a sandboxed plugin imports (runtime/sdk/aide-plugin.mjs):
// the same exports as the package; the define* helpers return what they are given, and
// `splitMessage` is generated from the package's own source (scripts/generate-sdk-split.mjs).
const copyUrl = new URL("../../runtime/sdk/aide-plugin.mjs", import.meta.url)
const splitCopy = new URL("../../runtime/sdk/split.mjs", import.meta.url)

describe("the SDK copy served to compartments", () => {
  it("has the package's runtime exports, with the same behaviour", async () => {
    const copy: Record<string, unknown> = await import(copyUrl.href)
    expect(Object.keys(copy).sort()).toEqual(Object.keys(Sdk).sort())
    const value = { id: "x" }
    for (const [name, helper] of Object.entries(Sdk)) {
      expect(typeof copy[name]).toBe("function")
      if (name === "splitMessage") continue
      expect((copy[name] as (value: unknown) => unknown)(value)).toBe((helper as (value: unknown) => unknown)(value))
    }
    const long = `${"word ".repeat(900)}\n\n\`\`\`js\n${"x = 1\n".repeat(300)}\`\`\``
    expect((copy.splitMessage as typeof Sdk.splitMessage)(long, 500)).toEqual(Sdk.splitMessage(long, 500))
  })

  it("splitMessage is the package's source with its types removed (regenerate: node scripts/generate-sdk-split.mjs)", () => {
    expect(readFileSync(splitCopy, "utf8")).toBe(generated())
  })
})

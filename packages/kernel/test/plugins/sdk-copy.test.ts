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
      expect((copy[name] as (value: unknown) => unknown)(value)).toBe((helper as (value: unknown) => unknown)(value))
    }
  })
})

import { describe, expect, it } from "vitest"
import { browserBuild } from "../scripts/size.mjs"

describe("the browser build", () => {
  it("bundles for the browser platform with no Node built-in and no runtime dependency", async () => {
    const { gzipped, text } = (await browserBuild()) as { gzipped: number; text: string }
    expect(text).not.toMatch(/from\s*"node:|require\(/)
    expect(text).not.toMatch(/from\s*"ai"/)
    expect(gzipped).toBeLessThan(6_000)
  })
})

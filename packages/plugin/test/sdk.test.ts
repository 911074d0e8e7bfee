import { describe, expect, it } from "vitest"
import { defineAgent, definePlugin, defineTool } from "../src/index.js"

describe("@aide/plugin", () => {
  it("define helpers return what they are given (plain objects work as well)", async () => {
    const manifest = definePlugin({
      manifestVersion: 1,
      id: "echo",
      name: "Echo",
      provides: { tools: [{ entry: "tools.js" }] },
    })
    expect(manifest.id).toBe("echo")
    const echo = defineTool<{ text: string }, string>({
      id: "echo",
      name: "Echo",
      description: "Says it back",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: (input) => input.text,
    })
    const context = { env: {}, config: {}, signal: new AbortController().signal, log: () => undefined }
    expect(await echo.execute({ text: "hi" }, context)).toBe("hi")
    expect(defineAgent({ id: "a", name: "A", description: "d", instructions: "i" }).instructions).toBe("i")
  })
})

import { Cause, Effect } from "effect"
import { describe, expect, it, vi } from "vitest"
import { loggerLayer } from "../../src/process/LogSettings.js"

/**
 * Issue 32 item 7, the server's side: a plugin's load error is logged with the plugin's own
 * message. In a terminal (`aide start`, the `pretty` format) it must not set the window title,
 * clear the screen or paint a fake line; the `json` format escapes control characters anyway.
 */
const hostile = "\u001b]0;pwned\u0007\u001b[2J\u001b[32mall tests passed\u001b[0m"

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

const logged = async (format: "json" | "pretty") => {
  const lines: Array<string> = []
  const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    lines.push(args.map(String).join(" "))
  })
  try {
    await Effect.runPromise(
      Effect.logError(
        `plugin failed to load: tools.js: broken${hostile}`,
        Cause.fail(new Error(`cause${hostile}`)),
      ).pipe(Effect.annotateLogs({ plugin: `evil${hostile}` }), Effect.provide(loggerLayer(format))),
    )
  } finally {
    spy.mockRestore()
  }
  return lines.join("\n")
}

describe("the server process's logger and a plugin's words", () => {
  it("prints no control sequence in the pretty format, keeping the words", async () => {
    const text = await logged("pretty")
    expect(text).toContain("plugin failed to load: tools.js: brokenall tests passed")
    expect(text).toContain("causeall tests passed")
    expect(text).toContain("evilall tests passed")
    expect(text).not.toMatch(controls)
  })

  it("escapes them in the json format", async () => {
    const text = await logged("json")
    expect(text).toContain("\\u001b]0;pwned")
    expect(text).not.toMatch(controls)
  })
})

import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as PluginManifest from "../../kernel/src/plugins/PluginManifest.js"
import { terminalText } from "../../server/src/process/TerminalText.js"
import { folderOf, isPluginId, pluginIdPattern } from "../src/PluginIds.js"
import { printable } from "../src/Printable.js"

/** What a terminal would act on: C0 but tab and newline, DEL, C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

describe("printable: a plugin's words as the terminal may show them", () => {
  it("removes title, clear-screen and colour sequences whole, leaving the words", () => {
    const name = "\u001b]0;pwned\u0007Weather\u001b[2J\u001b[H \u001b[32mall tests passed\u001b[0m"
    expect(printable(name)).toBe("Weather all tests passed")
  })

  it("removes the other escapes, 8-bit forms, unterminated strings and lone controls", () => {
    const cases: Array<[string, string]> = [
      ["a\u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\b", "alinkb"], // OSC ended by ESC \
      ["a\u001bPdevice\u001b\\b", "ab"], // DCS
      ["a\u001bcb", "ab"], // full reset
      ["a\u001b(Bb", "ab"], // charset
      ["a\u009b2Jb\u009d0;t\u009cc", "abc"], // 8-bit CSI and OSC
      ["ok\u001b]0;never ends", "ok"], // unterminated OSC: swallowed, as a terminal would
      ["a\u001b", "a"], // a lone ESC at the end
      ["\u0007bell\bback\rreturn\u007f\u0000", "bellbackreturn"],
      ["abc\u202edcba\u2066x\u2069", "abcdcbax"], // bidi override and isolate
      ["ünïcødé ✓ 日本", "ünïcødé ✓ 日本"],
    ]
    for (const [input, expected] of cases) expect(printable(input), JSON.stringify(input)).toBe(expected)
  })

  it("keeps newlines and tabs in multi-line text, turns them into spaces in one-line fields", () => {
    const text = "line one\r\n\tline two\n\u001b[32m✓ all tests passed\u001b[0m"
    expect(printable(text, { multiline: true })).toBe("line one\n\tline two\n✓ all tests passed")
    expect(printable(text)).toBe("line one  line two ✓ all tests passed")
  })

  it("takes anything a manifest may hold", () => {
    expect(printable(undefined)).toBe("")
    expect(printable(42)).toBe("42")
    expect(printable({})).toBe("[object Object]")
  })

  it("leaves no control character in any text", () => {
    let all = ""
    for (let code = 0; code < 0x3000; code++) all += String.fromCharCode(code)
    expect(printable(all, { multiline: true })).not.toMatch(controls)
    expect(printable(all)).not.toMatch(/[\t\n]/)
  })

  it("is the rule of the server's terminal log format (the CLI bundles neither kernel nor server)", () => {
    let all = "\u001b]0;pwned\u0007\u001b[2J\u001b[32mok\u001b[0m\u009b2J\u001bPx\u001b\\"
    for (let code = 0; code < 0x3000; code++) all += String.fromCharCode(code)
    expect(printable(all, { multiline: true })).toBe(terminalText(all))
  })
})

describe("plugin ids as paths", () => {
  it("the CLI's rule is the manifest schema's (the CLI does not bundle the kernel)", () => {
    expect(pluginIdPattern.source).toBe(PluginManifest.pluginIdPattern.source)
  })

  it("an id is one path segment: anything else is refused before it names a file", () => {
    for (const id of ["../x", "../../trav-escape-link", "..", ".", "a/b", "a\\b", "/abs", "", "A", "a".repeat(65)]) {
      expect(isPluginId(id), id).toBe(false)
      expect(() => folderOf("/data/plugins", id), id).toThrow(/is not a plugin id/)
    }
    expect(folderOf("/data/plugins", "a..b")).toBe(join("/data/plugins", "a..b"))
  })
})

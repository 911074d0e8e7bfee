import { describe, expect, it } from "vitest"
import { addressOfConversation, conversationOf } from "../src/channel.js"
import { markdownToHtml } from "../src/format.js"
import { approvalCommandsOf, newTextOf } from "../src/inbound.js"
import { approvalMarkdown } from "../src/outbound.js"
import { referencesFor, replySubject } from "../src/threads.js"

// The pure parts, on the shapes real clients produce (the mail-server suite covers the wire).

describe("the new text of a reply", () => {
  it("cuts Gmail's history, even when its 'On … wrote:' is wrapped over two lines", () => {
    const gmail =
      "Sounds good.\n\nOn Mon, Nov 30, 2026 at 9:14 AM Aide Assistant <assistant@example.com>\nwrote:\n> old"
    expect(newTextOf(gmail)).toBe("Sounds good.")
  })

  it("cuts Outlook's header block and 'Original Message', but keeps a line that merely starts with From:", () => {
    const outlook =
      "Fine by me\r\n\r\nFrom: Aide <assistant@example.com>\r\nSent: Monday\r\nTo: me\r\nSubject: Re: x\r\n\r\nold"
    expect(newTextOf(outlook)).toBe("Fine by me")
    expect(newTextOf("Yes\n-----Original Message-----\nold")).toBe("Yes")
    expect(newTextOf("From: the top, please.\nThanks")).toBe("From: the top, please.\nThanks")
  })

  it("drops quoted lines of an interleaved reply and the signature", () => {
    expect(newTextOf("> question one\nanswer one\n> question two\nanswer two\n-- \nAda\n+44 …")).toBe(
      "answer one\nanswer two",
    )
  })
})

describe("approval lines", () => {
  it("reads APPROVE / DENY lines in any case, with or without an id, and keeps the rest", () => {
    expect(approvalCommandsOf("approve 6f1c-aa\nDENY b.2\nDeny.\nand also tidy up")).toEqual({
      answers: [
        { approvalId: "6f1c-aa", approved: true },
        { approvalId: "b.2", approved: false },
        { approvalId: null, approved: false },
      ],
      rest: "and also tidy up",
    })
  })

  it("never reads its own instructions as an answer, so an unquoted copy answers nothing", () => {
    const offered = approvalMarkdown({ approvalId: "id-1", toolName: "shell", input: { cmd: "APPROVE id-1" } })
    expect(approvalCommandsOf(offered).answers).toEqual([])
  })

  it("shows a tool input holding backticks inside a longer fence", () => {
    const offered = approvalMarkdown({ approvalId: "i", toolName: "t", input: "```rm```" })
    expect(offered).toContain('````json\n"```rm```"\n````')
  })
})

describe("HTML of the assistant's Markdown", () => {
  it("escapes everything, keeps code blocks verbatim and renders the usual marks", () => {
    const html = markdownToHtml(
      "# Title <x>\n\nTom <b>& Jerry</b> **bold** `a<b`\n\n```ts\nif (a < b) {}\n```\n- one\n- two",
    )
    expect(html).toContain("<h1>Title &lt;x&gt;</h1>")
    expect(html).toContain("Tom &lt;b&gt;&amp; Jerry&lt;/b&gt; <strong>bold</strong> <code>a&lt;b</code>")
    expect(html).toMatch(/<pre [^>]*><code class="language-ts">if \(a &lt; b\) \{\}<\/code><\/pre>/)
    expect(html).toContain("<ul><li>one</li><li>two</li></ul>")
    expect(markdownToHtml("[x](javascript:alert(1))")).not.toContain("<a")
  })
})

describe("threading", () => {
  it("builds References from the parent's, trimming the middle past 20 and keeping the root", () => {
    expect(referencesFor(["<a>", "<b>"], "<c>")).toEqual(["<a>", "<b>", "<c>"])
    const long = Array.from({ length: 30 }, (_, index) => `<${index}>`)
    const trimmed = referencesFor(long, "<parent>")
    expect(trimmed).toHaveLength(20)
    expect(trimmed[0]).toBe("<0>")
    expect(trimmed.at(-1)).toBe("<parent>")
  })

  it("prefixes Re: once", () => {
    expect(replySubject("Plans")).toBe("Re: Plans")
    expect(replySubject("RE: Plans")).toBe("RE: Plans")
    expect(replySubject("  ")).toBe("Re: your message")
  })

  it("keeps the sender readable in the conversation id, hashing only an overlong root", () => {
    expect(conversationOf("me@example.com", "<r@x>")).toBe("me@example.com <r@x>")
    const long = conversationOf("me@example.com", `<${"x".repeat(300)}@x>`)
    expect(long).toMatch(/^me@example\.com sha256:[0-9a-f]{64}$/)
    expect(addressOfConversation(long)).toBe("me@example.com")
  })
})

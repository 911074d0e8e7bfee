import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Inbox, TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { approvalProbe } from "@aide/testing/fixtures"
import { Effect } from "effect"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { password, request, setup, startServer, type TestServer } from "../../server/test/support/server.js"
import { chromiumArgs, chromiumPath, consoleDist, consoleRoot, ensureBuilt } from "./support.js"

// The chat's actions on a phone (touch, 390×844) and axe-core over every screen on a desktop and a
// phone, light and dark. One server, one browser, two contexts (a desktop's, a phone's).
const executablePath = chromiumPath()
const screenshots = join(consoleRoot, "..", "..", "docs", "screenshots")
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

type Finding = { id: string; impact: string; nodes: Array<string>; help: string }
/** axe-core's serious and critical findings on the page (evaluated through DevTools: the CSP does not govern it). */
const seriousViolations = async (page: Page): Promise<Array<Finding>> => {
  await page.evaluate(axeSource)
  const results = (await page.evaluate(async () => {
    const { violations } = await (globalThis as any).axe.run(document, { resultTypes: ["violations"] })
    return violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((node: any) => String(node.target)),
    }))
  })) as Array<Finding>
  return results.filter((v) => v.impact === "serious" || v.impact === "critical")
}

describe.skipIf(executablePath === undefined)("the console on a phone, and to axe-core on every screen", () => {
  let server: TestServer
  let model: FakeModelServer
  let browser: Browser
  let desktop: Page
  let phone: Page
  const probe = approvalProbe()
  let apiToken = ""
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    request(`${server.url}${path}`, { ...init, token: apiToken })
  /** Threads made on the way, for the axe pass: one with answers and code, one waiting for an approval. */
  const threads: { answered?: string; waiting?: string; math?: string } = {}
  /** The math chunk's requests (KaTeX): none until a message has math. */
  const mathChunks: Array<string> = []
  const cspErrors: Array<string> = []
  const threadOf = (page: Page) => decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!)

  const context = async (options: Parameters<Browser["newContext"]>[0]): Promise<BrowserContext> => {
    const made = await browser.newContext({ ...options, colorScheme: "light" })
    await made.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    return made
  }
  const open = async (made: BrowserContext) => {
    const page = await made.newPage()
    page.setDefaultTimeout(10_000)
    page.on("pageerror", (error) => console.log(`[browser error] ${error.message}`))
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text())
    })
    return page
  }

  beforeAll(async () => {
    ensureBuilt()
    model = await FakeModelServer.start()
    server = await startServer({
      consoleDir: consoleDist,
      env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
      kernel: { chat: { maxRetries: 0 }, titles: TitleGenerator.layerFallback, tools: probe.tools },
    })
    browser = await chromium.launch({ executablePath: executablePath!, args: chromiumArgs })
    desktop = await open(await context({ viewport: { width: 1280, height: 800 } }))
    desktop.on("request", (sent) => {
      if (/\/assets\/math-[^/]*\.js$/.test(new URL(sent.url()).pathname)) mathChunks.push(sent.url())
    })
    phone = await open(await context({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }))
  })
  afterEach(async (test) => {
    if (test.task.result?.state === "fail")
      for (const [name, page] of [
        ["desktop", desktop],
        ["phone", phone],
      ] as const)
        await page?.screenshot({ path: join(tmpdir(), `aide-phone-a11y-${name}.png`) })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await model?.close()
  })

  const schemes = ["light", "dark"] as const
  const both = () =>
    [
      ["desktop", desktop],
      ["phone", phone],
    ] as const
  /** axe on `page` in both themes (the system's preference: the console follows it until one is picked). */
  const inBothThemes = async (page: Page, where: string, ready: () => Promise<unknown>) => {
    const found: Record<string, Array<Finding>> = {}
    for (const scheme of schemes) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.reload()
      await ready()
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme)
      const violations = await seriousViolations(page)
      if (violations.length > 0) found[`${where} (${scheme})`] = violations
    }
    return found
  }

  it("setup and sign-in screens: no serious finding, desktop and phone, light and dark (they follow the system's theme)", async () => {
    const found: Record<string, Array<Finding>> = {}
    for (const [name, page] of both()) {
      await page.goto(`${server.url}/app/`)
      Object.assign(
        found,
        await inBothThemes(page, `${name} setup`, () => page.getByText("Choose the password").waitFor()),
      )
    }
    apiToken = (await setup(server)).token
    for (const [name, page] of both())
      Object.assign(
        found,
        await inBothThemes(page, `${name} sign-in`, () => page.getByRole("button", { name: "Sign in" }).waitFor()),
      )
    expect(found).toEqual({})
    for (const [, page] of both()) {
      await page.emulateMedia({ colorScheme: "light" })
      await page.getByLabel("Password").fill(password)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("textbox", { name: "Message" }).waitFor()
    }
  })

  it("on a phone the answer's actions are in reach by touch: copy (code and message), regenerate and < n/m >, branch from here", async () => {
    const page = phone
    expect(await page.evaluate(() => matchMedia("(hover: none)").matches)).toBe(true)
    const box = page.getByRole("textbox", { name: "Message" })
    const send = async (text: string) => {
      await box.fill(text)
      await page.getByRole("button", { name: "Send" }).tap()
    }
    const idle = () => page.getByRole("button", { name: "Send" }).waitFor()
    /** Nothing scrolls sideways, and the control is wholly on screen. */
    const inReach = async (locator: ReturnType<Page["locator"]>) => {
      await locator.scrollIntoViewIfNeeded()
      const box = (await locator.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(390)
      // A finger's target (WCAG 2.5.8: 24 px at least).
      expect(box.height).toBeGreaterThanOrEqual(24)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    }
    model.script({ text: "Use a loop:\n\n```python\nfor i in range(3):\n    print(i)\n```" })
    await send("Count to three")
    await page.locator(".message.assistant pre code .hljs-built_in").first().waitFor()
    await idle()
    const first = page.locator(".message.assistant").first()
    // The code block's Copy, by touch.
    const copyCode = first.locator(".code-bar").getByRole("button", { name: "Copy" })
    await inReach(copyCode)
    await copyCode.tap()
    await first.locator(".code-bar").getByRole("button", { name: "Copied" }).waitFor()
    await page.screenshot({ path: join(screenshots, "phone-code.png") })
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("for i in range(3):\n    print(i)")
    // The message's Copy: shown without hovering (a touch screen has no pointer to hover with).
    const copyMessage = first.getByRole("button", { name: "Copy message" })
    expect(await copyMessage.isVisible()).toBe(true)
    await inReach(copyMessage)
    await copyMessage.tap()
    await first.getByRole("button", { name: "Copied the message" }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("Use a loop:")
    // Regenerate, then the switcher, by touch.
    const original = page.url()
    model.script({ text: "Or count by hand: 1, 2, 3." })
    const regenerate = first.getByRole("button", { name: "Regenerate" })
    await inReach(regenerate)
    await regenerate.tap()
    await page.getByText("Or count by hand: 1, 2, 3.").waitFor()
    await idle()
    expect(page.url()).not.toBe(original)
    const switcher = page.getByRole("navigation", { name: "Answers to this message" })
    await expect.poll(() => switcher.textContent()).toContain("2/2")
    expect(await page.locator(".message.user").count()).toBe(1)
    await inReach(switcher.getByRole("button", { name: "Previous answer" }))
    await page.screenshot({ path: join(screenshots, "phone-answer-actions.png") })
    await switcher.getByRole("button", { name: "Previous answer" }).tap()
    await page.locator(".message.assistant pre code").waitFor()
    expect(page.url()).toBe(original)
    await expect.poll(() => switcher.textContent()).toContain("1/2")
    threads.answered = threadOf(page)
    // A second question, then Branch from here on the first answer: the branch ends with it.
    model.script({ text: "Done counting." })
    await send("Thanks")
    await page.getByText("Done counting.").waitFor()
    await idle()
    const branch = page.locator(".message.assistant").first().getByRole("button", { name: "Branch from here" })
    await inReach(branch)
    await branch.tap()
    await expect.poll(() => page.url()).not.toBe(original)
    await page.locator(".message.assistant pre code").waitFor()
    expect(await page.getByText("Done counting.").count()).toBe(0)
    model.script({ text: "Counting down: 3, 2, 1." })
    await send("Now backwards")
    await page.getByText("Counting down: 3, 2, 1.").waitFor()
    await idle()
    expect(await page.locator(".message").evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual([
      "message user",
      "message assistant",
      "message user",
      "message assistant",
    ])
  })

  it("on a phone: edit in a branch gets its answer, Stop stops, approve and deny by touch; the ? button shows the shortcuts", async () => {
    const page = phone
    const box = page.getByRole("textbox", { name: "Message" })
    // Edit in a branch: the question in the box, edited and sent, answered there.
    const edit = page.locator(".message.user").last().getByRole("button", { name: "Edit in a branch" })
    const before = page.url()
    await edit.tap()
    await expect.poll(() => page.url()).not.toBe(before)
    await expect.poll(() => box.inputValue()).toBe("Now backwards")
    model.script({ text: "Backwards from ten: 10, 9, 8." })
    await box.fill("Backwards from ten")
    await page.getByRole("button", { name: "Send" }).tap()
    await page.getByText("Backwards from ten: 10, 9, 8.").waitFor()
    expect(await page.getByText("Counting down: 3, 2, 1.").count()).toBe(0)
    expect(await page.locator(".message.user").last().textContent()).toContain("Backwards from ten")
    await page.getByRole("button", { name: "Send" }).waitFor()
    // Stop, by touch.
    await page.getByRole("button", { name: "Menu" }).tap()
    await page.getByRole("button", { name: "New chat" }).tap()
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    model.script({ text: ["tick "], endless: true, chunkDelayMs: 50 })
    await box.fill("Tick for ever")
    await page.getByRole("button", { name: "Send" }).tap()
    await page.getByText("tick tick", { exact: false }).waitFor()
    await page.getByRole("button", { name: "Stop" }).tap()
    await page.getByRole("button", { name: "Send" }).waitFor()
    const stopped = threadOf(page)
    await expect.poll(async () => (await api("/api/threads?perPage=false")).body.activeStreamIds).not.toContain(stopped)
    // Deny, then approve, by touch.
    model.script(
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/phone-a.txt" } }] },
      { text: "Left it alone." },
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/phone-b.txt" } }] },
      { text: "Deleted b." },
    )
    await box.fill("Delete /tmp/phone-a.txt")
    await page.getByRole("button", { name: "Send" }).tap()
    await page.getByRole("button", { name: "Deny" }).tap()
    await page.getByText("Left it alone.").waitFor()
    await page.getByRole("button", { name: "Send" }).waitFor()
    await box.fill("Delete /tmp/phone-b.txt")
    await page.getByRole("button", { name: "Send" }).tap()
    const approve = page.getByRole("button", { name: "Approve" })
    await approve.waitFor()
    await page.screenshot({ path: join(screenshots, "phone-approval.png") })
    await approve.tap()
    await page.getByText("Deleted b.").waitFor()
    expect(probe.executions).toEqual([{ path: "/tmp/phone-b.txt" }])
    // No keyboard: the shortcuts are one tap away in the bar all the same.
    await page.getByRole("button", { name: "Keyboard shortcuts" }).tap()
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" })
    await help.getByText("New chat").waitFor()
    const dialogBox = (await help.boundingBox())!
    expect(dialogBox.x).toBeGreaterThanOrEqual(0)
    expect(dialogBox.x + dialogBox.width).toBeLessThanOrEqual(390)
    await page.screenshot({ path: join(screenshots, "phone-shortcuts.png") })
    await help.getByRole("button", { name: "Close" }).tap()
    await help.waitFor({ state: "hidden" })
  })

  it("keyboard only on a desktop: send, deny with Alt+N, approve with Tab and Enter; the ? overlay", async () => {
    const page = desktop
    const box = page.getByRole("textbox", { name: "Message" })
    await page.keyboard.press("Control+Shift+O")
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    await page.keyboard.press("Shift+Escape")
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true)
    model.script(
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/keys-a.txt" } }] },
      { text: "Kept keys-a." },
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/keys-b.txt" } }] },
      { text: "Deleted keys-b." },
    )
    await page.keyboard.type("Delete /tmp/keys-a.txt")
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Deny" }).waitFor()
    await page.keyboard.press("Alt+KeyN")
    await page.getByText("Kept keys-a.").waitFor()
    expect(probe.executions).not.toContainEqual({ path: "/tmp/keys-a.txt" })
    await page.getByRole("button", { name: "Send" }).waitFor()
    await page.keyboard.press("Shift+Escape")
    await page.keyboard.type("Delete /tmp/keys-b.txt")
    await page.keyboard.press("Enter")
    const approve = page.getByRole("button", { name: "Approve" })
    await approve.waitFor()
    // The card's buttons are in the Tab order: Shift+Tab back from the message box reaches them.
    await page.keyboard.press("Shift+Escape")
    for (let presses = 0; presses < 30; presses++) {
      if (await approve.evaluate((element) => element === document.activeElement)) break
      await page.keyboard.press("Shift+Tab")
    }
    expect(await approve.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press("Enter")
    await page.getByText("Deleted keys-b.").waitFor()
    expect(probe.executions).toContainEqual({ path: "/tmp/keys-b.txt" })
    // The ? overlay, as the docs show it.
    await page.locator("body").click({ position: { x: 5, y: 400 } })
    await page.keyboard.press("?")
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" })
    await help.getByText("Approve / deny the tool call waiting").waitFor()
    await page.screenshot({ path: join(screenshots, "shortcuts.png") })
    await page.keyboard.press("Escape")
    await help.waitFor({ state: "hidden" })
    // A tool call left waiting, for the axe pass over the approval card.
    model.script({ toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/never.txt" } }] })
    await page.keyboard.press("Control+Shift+O")
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    await box.fill("Delete /tmp/never.txt")
    await page.keyboard.press("Enter")
    await approve.waitFor()
    threads.waiting = threadOf(page)
  })

  it("math: typeset as MathML once KaTeX's chunk is in, which loads only when a message has math", async () => {
    const page = desktop
    // Answers with code, tool calls and a shortcuts overlay came before: no math, no KaTeX.
    expect(mathChunks).toEqual([])
    await page.keyboard.press("Control+Shift+O")
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    model.script({
      text: "The roots: $$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$$ and inline \\(a_1 * b_2\\), it costs $5.\n\n$$\n\\sum_{i=1}^{n} i\n$$",
    })
    await page.getByRole("textbox", { name: "Message" }).fill("Quadratic formula?")
    await page.keyboard.press("Enter")
    const answer = page.locator(".message.assistant")
    await answer.locator("math").first().waitFor()
    await expect.poll(() => answer.locator("math").count()).toBe(3)
    expect(mathChunks).toHaveLength(1)
    // MathML from KaTeX: a fraction and a root, the TeX kept as its annotation; underscores are not emphasis.
    expect(await answer.locator("mfrac").count()).toBe(1)
    expect(await answer.locator("msqrt").count()).toBe(1)
    expect(await answer.locator("annotation").first().textContent()).toBe("x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}")
    expect(await answer.locator("em").count()).toBe(0)
    expect(await answer.locator("math[display='block']").count()).toBe(2)
    await answer.getByText("it costs $5.", { exact: false }).waitFor()
    await page.screenshot({ path: join(screenshots, "math.png") })
    threads.math = threadOf(page)
  })

  it("every signed-in screen: no serious finding from axe-core, desktop and phone, light and dark", async () => {
    const inbox = await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) =>
        inbox.create({ subject: "Disk almost full", body: "The **data** disk is at 91%.", destination: "web" }),
      ),
    )
    expect(inbox.id).toBeDefined()
    const task = await api("/api/schedule", {
      method: "POST",
      body: { name: "Morning brief", prompt: "Brief me", cron: "0 9 * * 1-5", timezone: "UTC" },
    })
    expect(task.status).toBe(201)
    await api("/api/memory/working", { method: "PUT", body: { content: "# Owner\n- prefers short answers" } })
    const heading = (page: Page, name: string) => () =>
      page.getByRole("heading", { name, exact: true }).first().waitFor()
    const screens: ReadonlyArray<{
      readonly name: string
      readonly path: string
      readonly ready: (page: Page) => Promise<unknown>
      readonly open?: (page: Page, phone: boolean) => Promise<unknown>
    }> = [
      {
        name: "chat with answers and code",
        path: `/chat/${threads.answered}`,
        ready: (page) => page.locator(".message.assistant pre code .hljs-built_in").first().waitFor(),
      },
      {
        name: "chat with math",
        path: `/chat/${threads.math}`,
        ready: (page) => page.locator(".message.assistant math").first().waitFor(),
      },
      {
        name: "chat with an approval waiting",
        path: `/chat/${threads.waiting}`,
        ready: (page) => page.getByRole("button", { name: "Approve" }).waitFor(),
      },
      {
        name: "thread list (the phone's menu)",
        path: "/",
        ready: (page) => page.getByRole("textbox", { name: "Message" }).waitFor(),
        open: async (page, phone) => {
          if (phone) await page.getByRole("button", { name: "Menu" }).tap()
          await page.getByRole("complementary", { name: "Threads" }).getByRole("link").first().waitFor()
        },
      },
      {
        name: "shortcuts overlay",
        path: "/",
        ready: (page) => page.getByRole("textbox", { name: "Message" }).waitFor(),
        open: async (page) => {
          await page.getByRole("button", { name: "Keyboard shortcuts" }).click()
          await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor()
        },
      },
      {
        name: "model picker, open",
        path: "/",
        ready: (page) => page.getByRole("textbox", { name: "Message" }).waitFor(),
        open: async (page) => {
          await page.locator(".model-button").click()
          await page.getByRole("dialog", { name: "Choose a model" }).getByLabel("Search models").waitFor()
        },
      },
      { name: "inbox", path: "/inbox", ready: (page) => page.getByText("Disk almost full").waitFor() },
      { name: "schedule", path: "/schedule", ready: (page) => heading(page, "Morning brief")() },
      { name: "memory", path: "/memory", ready: (page) => page.getByLabel("Working memory").waitFor() },
      {
        name: "tools",
        path: "/tools",
        ready: (page) => page.getByRole("heading", { name: "Plugins" }).waitFor(),
      },
      {
        name: "settings (connections, notifications, sessions, MCP)",
        path: "/settings",
        ready: async (page) => {
          await page.getByRole("region", { name: "Connections" }).getByText("set by the environment").first().waitFor()
          await page
            .getByRole("button", { name: /^Revoke session/ })
            .first()
            .waitFor()
          await page.getByRole("checkbox", { name: /Notify this browser/ }).waitFor()
        },
      },
    ]
    const found: Record<string, Array<Finding>> = {}
    for (const [device, page] of both())
      for (const scheme of schemes) {
        await page.emulateMedia({ colorScheme: scheme })
        for (const screen of screens) {
          await page.goto(`${server.url}/app${screen.path}`)
          await screen.ready(page)
          await screen.open?.(page, device === "phone")
          expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme)
          const violations = await seriousViolations(page)
          if (violations.length > 0) found[`${device} ${scheme}: ${screen.name}`] = violations
        }
      }
    expect(found).toEqual({})
    // The new Settings cards as docs/console.md shows them.
    for (const [device, page] of both()) {
      await page.emulateMedia({ colorScheme: "light" })
      await page.goto(`${server.url}/app/settings`)
      const connections = page.getByRole("region", { name: "Connections" })
      await connections.getByText("set by the environment").first().waitFor()
      const notifications = page.getByRole("region", { name: "Browser notifications" })
      await notifications.getByRole("checkbox", { name: /Notify this browser/ }).waitFor()
      // (The desktop's whole Settings page with a connection tested: console.e2e.test.ts, settings-connections.png.)
      if (device === "phone") await connections.screenshot({ path: join(screenshots, "phone-connections.png") })
      await notifications.screenshot({ path: join(screenshots, `${device}-notifications.png`) })
    }
    // Some twenty screens, each reloaded in both themes with an axe pass: 35 s at rest, past 60 s
    // on a loaded 2-core CI machine.
  }, 150_000)

  it("the offline screen: no serious finding, desktop and phone, light and dark", async () => {
    const found: Record<string, Array<Finding>> = {}
    for (const [device, page] of both()) {
      await page.goto(`${server.url}/app/`)
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true))
      await page.reload()
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
      await page.context().setOffline(true)
      try {
        Object.assign(
          found,
          await inBothThemes(page, `${device} offline`, () =>
            page.getByRole("heading", { name: "Aide is out of reach" }).waitFor(),
          ),
        )
      } finally {
        await page.context().setOffline(false)
      }
    }
    expect(found).toEqual({})
  })

  it("broke no Content-Security-Policy rule on the way (MathML and highlighting included)", () => {
    expect(cspErrors).toEqual([])
  })
})

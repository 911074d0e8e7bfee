import { createECDH, randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppConfig, Inbox, TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { approvalProbe, mcpStdioServerPath, startFakeTelegram } from "@aide/testing/fixtures"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type JsonResponse, password, request, startServer, type TestServer } from "../../server/test/support/server.js"
import { chromiumArgs, chromiumPath, consoleDist, consoleRoot, ensureBuilt } from "./support.js"

const executablePath = chromiumPath()
if (executablePath === undefined)
  console.warn("[console] no Chromium at /usr/bin/chromium (apt-get install chromium): the browser suite is skipped")

const screenshots = join(consoleRoot, "..", "..", "docs", "screenshots")
// A plugin folder on AIDE_PLUGINS_PATH: a settings form of every field type, a missing env var.
const pluginsRoot = mkdtempSync(join(tmpdir(), "aide-console-plugins-"))
mkdirSync(join(pluginsRoot, "weather"))
writeFileSync(
  join(pluginsRoot, "weather", "aide.plugin.json"),
  JSON.stringify({
    manifestVersion: 1,
    id: "weather",
    name: "Weather",
    description: "Forecasts",
    envVars: [{ name: "CONSOLE_TEST_WEATHER_KEY", required: true }],
    configFields: [
      { key: "apiToken", label: "API token", type: "password", required: true },
      {
        key: "units",
        label: "Units",
        type: "enum",
        options: [
          { value: "metric", label: "Metric" },
          { value: "imperial", label: "Imperial" },
        ],
      },
      { key: "days", label: "Days ahead", type: "number" },
      { key: "alerts", label: "Severe weather alerts", type: "boolean" },
    ],
    provides: { tools: [{ entry: "tools.js" }] },
  }),
)
// A plugin that loads: one tool, enabled in the UI.
mkdirSync(join(pluginsRoot, "greeter"))
writeFileSync(
  join(pluginsRoot, "greeter", "aide.plugin.json"),
  JSON.stringify({
    manifestVersion: 1,
    id: "greeter",
    name: "Greeter",
    description: "Says hello",
    provides: { tools: [{ entry: "tools.js", requireApproval: false }] },
  }),
)
writeFileSync(
  join(pluginsRoot, "greeter", "tools.js"),
  `export default { id: "hello", name: "Say hello", description: "Greets someone by name", parameters: { type: "object" }, execute: () => "hello" }`,
)
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** axe-core in the page (evaluated through DevTools, which the page's CSP does not govern). */
const seriousViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const results = await page.evaluate(async () => {
    const axe = (globalThis as any).axe
    const { violations } = await axe.run(document, { resultTypes: ["violations"] })
    return violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }))
  })
  return (results as Array<{ impact: string }>).filter((v) => v.impact === "serious" || v.impact === "critical")
}

describe.skipIf(executablePath === undefined)("the web console in Chromium", () => {
  let server: TestServer
  let model: FakeModelServer
  let browser: Browser
  let page: Page
  const probe = approvalProbe()
  const cspErrors: Array<string> = []
  // The suite's own API session (logins are rate-limited: one, renewed only when revoked).
  let apiToken: string | undefined
  const api = async (
    path: string,
    init: { method?: string; body?: unknown } = {},
    retried = false,
  ): Promise<JsonResponse> => {
    apiToken ??= (await request(`${server.url}/api/auth/login`, { body: { password } })).body.token as string
    const response = await request(`${server.url}${path}`, { ...init, token: apiToken })
    if (response.status !== 401 || retried) return response
    apiToken = undefined
    return api(path, init, true)
  }
  const shot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`) })
  const section = (name: string) => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name })

  beforeAll(async () => {
    ensureBuilt()
    model = await FakeModelServer.start()
    server = await startServer({
      consoleDir: consoleDist,
      env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
      pluginsPath: [pluginsRoot],
      kernel: { chat: { maxRetries: 0 }, titles: TitleGenerator.layerFallback, tools: probe.tools },
    })
    browser = await chromium.launch({ executablePath: executablePath!, args: chromiumArgs })
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light" })
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    page = await context.newPage()
    page.setDefaultTimeout(10_000)
    page.on("response", (response) => {
      if (process.env.AIDE_CONSOLE_DEBUG && response.status() >= 400)
        console.log(`[browser] ${response.status()} ${response.url()}`)
    })
    page.on("pageerror", (error) => console.log(`[browser error] ${error.message}`))
    page.on("console", (message) => {
      if (process.env.AIDE_CONSOLE_DEBUG) console.log(`[browser] ${message.text()}`)
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text())
    })
  })
  afterEach(async (context) => {
    if (context.task.result?.state === "fail")
      await page?.screenshot({
        path: join(tmpdir(), `aide-console-${context.task.name.slice(0, 30).replace(/\W+/g, "-")}.png`),
      })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await model?.close()
    rmSync(pluginsRoot, { recursive: true, force: true })
  })

  it("first run: a browser opening / lands on the setup screen, sets the password and reaches the chat", async () => {
    await page.goto(`${server.url}/`)
    expect(new URL(page.url()).pathname).toBe("/app/")
    await expect.poll(() => page.getByText("Choose the password").isVisible()).toBe(true)
    // The password rule is said before it is broken; breaking it is said under the field, in words.
    const passwordField = page.getByLabel("Password", { exact: true })
    await page.getByText("At least 8 characters.").waitFor()
    await shot("setup")
    await passwordField.fill("short")
    await page.getByLabel("Confirm password").fill("short")
    await page.getByRole("button", { name: "Set password" }).click()
    const problem = page.getByRole("alert")
    expect(await problem.textContent()).toBe("Too short: at least 8 characters.")
    expect(await passwordField.getAttribute("aria-invalid")).toBe("true")
    expect(await passwordField.getAttribute("aria-describedby")).toContain(await problem.getAttribute("id"))
    await passwordField.fill(password)
    await page.getByLabel("Confirm password").fill(password)
    await page.getByRole("button", { name: "Set password" }).click()
    await page.getByRole("textbox", { name: "Message" }).waitFor()
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/chat\/[0-9a-f]{32}$/)
    // On a desktop the sections are in the bar: no menu button.
    expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(false)
    // Only the OpenAI-compatible server is configured: the picker starts on its model, not OpenAI's.
    await expect
      .poll(() => page.locator(".model-button").textContent())
      .toBe("OpenAI-compatible (any server) · fake-model")
    expect(await page.locator(".notice").count()).toBe(0)
  })

  it("a model that is not configured is said before sending; chosen from the grouped, searchable picker, Retry answers in the same thread", async () => {
    // As if the owner had chosen OpenAI without its key.
    await api("/api/config", {
      method: "PATCH",
      body: { models: { operator: { provider: "openai", model: "gpt-4.1-mini" } } },
    })
    await page.reload()
    const notice = page.locator(".notice")
    await notice.waitFor()
    expect(await notice.textContent()).toContain("OpenAI is not configured (set OPENAI_API_KEY)")
    const chatUrl = page.url()
    model.script({ text: "Now I can answer." })
    await page.getByRole("textbox", { name: "Message" }).fill("First question")
    await page.keyboard.press("Enter")
    const failure = page.locator(".inline-error")
    await failure.waitFor()
    const failureText = (await failure.locator("span").textContent()) ?? ""
    expect(failureText).toContain("set OPENAI_API_KEY")
    expect(failureText).not.toMatch(/\b(409|500)\b/)
    // The picker: configured providers first, grouped; the others say what to set; searchable.
    await page.locator(".model-button").click()
    const menu = page.getByRole("dialog", { name: "Choose a model" })
    const groups = await menu.locator("section h3").allTextContents()
    expect(groups[0]).toBe("OpenAI-compatible (any server)")
    expect(groups).not.toContain("OpenAI")
    await menu.getByText("Not configured", { exact: false }).click()
    await menu.getByText("OPENAI_API_KEY", { exact: false }).waitFor()
    await shot("model-picker")
    await menu.getByLabel("Search models").fill("mini")
    expect(await menu.getByRole("button").allTextContents()).toEqual(["fake-model-mini"])
    await menu.getByLabel("Search models").fill("fake")
    await menu.getByRole("button", { name: "fake-model", exact: true }).click()
    await expect.poll(() => notice.count()).toBe(0)
    await failure.getByRole("button", { name: "Retry" }).click()
    await page.getByText("Now I can answer.").waitFor()
    // Answered in the same thread: no branch, the list and the heading have its title.
    expect(page.url()).toBe(chatUrl)
    const threadId = decodeURIComponent(new URL(chatUrl).pathname.split("/").at(-1)!)
    const detail = await api(`/api/threads/${threadId}`)
    expect(detail.body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"])
    expect(detail.body.forkInfo).toBeNull()
    const threads = page.getByRole("complementary", { name: "Threads" })
    await threads.getByRole("link", { name: "First question" }).waitFor()
    expect(await threads.getByRole("link", { name: "New thread" }).count()).toBe(0)
    await page.locator(".chat-head").getByRole("heading", { name: "First question" }).waitFor()
  })

  it("streams an answer as markdown, with a copyable code block", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    // The untitled heading says "New chat" but renames: one button opens a new chat.
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    expect(await page.getByRole("button", { name: "New chat" }).count()).toBe(1)
    await page.getByRole("button", { name: "Rename this chat" }).waitFor()
    model.script({
      text: [
        "Hello ",
        "**world**",
        " from current_time,notify,update_working_memory",
        "\n\n```js\n",
        "console.log(1)\n",
        "```",
      ],
      chunkDelayMs: 150,
    })
    await page.getByRole("textbox", { name: "Message" }).fill("Say hello")
    await page.keyboard.press("Enter")
    // While it streams, the Send button is a Stop button.
    await page.getByRole("button", { name: "Stop" }).waitFor()
    await page.locator(".message.assistant strong", { hasText: "world" }).waitFor()
    await page.getByRole("button", { name: "Send" }).waitFor()
    await expect.poll(() => page.locator(".message.assistant pre code").textContent()).toBe("console.log(1)")
    // Highlighted once the highlighter's chunk is in; underscores inside words stay literal.
    await page.locator(".message.assistant pre code .hljs-number").waitFor()
    await page.locator(".message.assistant p", { hasText: "current_time,notify,update_working_memory" }).waitFor()
    expect(await page.locator(".message.assistant em").count()).toBe(0)
    await page.getByRole("button", { name: "Copy" }).click()
    await page.getByRole("button", { name: "Copied" }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("console.log(1)")
    await page.getByRole("link", { name: "Say hello" }).waitFor()
    await shot("chat")
    expect(await seriousViolations(page)).toEqual([])
  })

  it("while a first answer streams, the heading and the list agree on its name; a new chat asks nothing of a thread it has not got", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    // The list announces changes (another chat's title arriving): the new chat has no thread to read.
    const asked: Array<string> = []
    const onRequest = (request: { url: () => string }) => {
      if (/\/api\/threads\/[^/?]+$/.test(new URL(request.url()).pathname)) asked.push(request.url())
    }
    page.on("request", onRequest)
    const listed = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/threads")
    await page.evaluate(() => globalThis.dispatchEvent(new Event("aide:threads")))
    await listed
    page.off("request", onRequest)
    expect(asked).toEqual([])
    model.script({ text: Array.from({ length: 20 }, (_, i) => `leaf${i} `), chunkDelayMs: 100 })
    await page.getByRole("textbox", { name: "Message" }).fill("Plan   the garden party")
    await page.keyboard.press("Enter")
    await page.getByText("leaf2", { exact: false }).waitFor()
    // Still streaming: the first words name it in both places (the server's title-to-be).
    await page.getByRole("button", { name: "Stop" }).waitFor()
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("Plan the garden party")
    const threads = page.getByRole("complementary", { name: "Threads" })
    await threads.getByRole("link", { name: "Plan the garden party" }).waitFor()
    expect(await threads.getByRole("link", { name: "Untitled chat" }).count()).toBe(0)
    await page.getByText("leaf19", { exact: false }).waitFor({ timeout: 15_000 })
    await page.getByRole("button", { name: "Send" }).waitFor()
    // Back to the chat the next tests go on with.
    await threads.getByRole("link", { name: "Say hello" }).click()
    await page.locator(".message.assistant strong", { hasText: "world" }).waitFor()
  })

  it("approval round trip: the tool runs only once approved in its card", async () => {
    model.script(
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/report.txt" } }] },
      { text: "Deleted the report." },
    )
    await page.getByRole("textbox", { name: "Message" }).fill("Delete /tmp/report.txt")
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Approve" }).waitFor()
    expect(probe.executions).toEqual([])
    await shot("approval")
    await page.getByRole("button", { name: "Approve" }).click()
    await page.getByText("Deleted the report.").waitFor()
    expect(probe.executions).toEqual([{ path: "/tmp/report.txt" }])
  })

  it("forks from a message and switches between the sibling branches", async () => {
    const original = page.url()
    await page.getByRole("button", { name: "Edit in a branch" }).nth(1).click()
    await expect.poll(() => page.url()).not.toBe(original)
    // The branch holds what came before the message, and the message to edit.
    await expect.poll(() => page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("Delete /tmp/report.txt")
    await expect.poll(() => page.getByText("Deleted the report.").count()).toBe(0)
    model.script({ text: "Kept it instead." })
    await page.getByRole("textbox", { name: "Message" }).fill("Keep the report")
    await page.keyboard.press("Enter")
    await page.getByText("Kept it instead.").waitFor()
    const branch = page.url()
    // Renamed from the list while the branch is on screen: the heading follows.
    const threads = page.getByRole("complementary", { name: "Threads" })
    const heading = page.locator(".chat-head h1")
    await threads.getByRole("button", { name: "Rename Say hello" }).click()
    await threads.getByLabel("Thread title").fill("Report talk")
    await threads.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => heading.textContent()).toBe("Report talk")
    await threads.getByRole("link", { name: "Report talk" }).waitFor()
    await threads.getByRole("button", { name: "Rename Report talk" }).click()
    await threads.getByLabel("Thread title").fill("Say hello")
    await threads.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => heading.textContent()).toBe("Say hello")
    await page.getByRole("navigation", { name: "Branches" }).getByRole("link", { name: "the original" }).click()
    await page.getByText("Deleted the report.").waitFor()
    expect(page.url()).toBe(original)
    await page.getByRole("navigation", { name: "Other branches from this message" }).getByRole("link").first().click()
    await page.getByText("Kept it instead.").waitFor()
    expect(page.url()).toBe(branch)
  })

  it("answers you can work with: copy one, regenerate beside it and switch < n/m >, branch from an earlier one", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    const box = page.getByRole("textbox", { name: "Message" })
    model.script({ text: "Paris is the capital." })
    await box.fill("Capital of France?")
    await page.keyboard.press("Enter")
    await page.getByText("Paris is the capital.").waitFor()
    await page.getByRole("button", { name: "Send" }).waitFor()
    const first = page.locator(".message.assistant", { hasText: "Paris is the capital." })
    // Copy shows on the message pointed at.
    await first.hover()
    await first.getByRole("button", { name: "Copy message" }).click()
    await first.getByRole("button", { name: "Copied the message" }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Paris is the capital.")
    const original = page.url()
    // Regenerate: a new answer to the same question, in a branch beside the first.
    model.script({ text: "It is Paris." })
    await first.getByRole("button", { name: "Regenerate" }).click()
    await page.getByText("It is Paris.").waitFor()
    await expect.poll(() => page.url()).not.toBe(original)
    await page.getByRole("button", { name: "Send" }).waitFor()
    const switcher = page.getByRole("navigation", { name: "Answers to this message" })
    await expect.poll(() => switcher.textContent()).toContain("2/2")
    // The question was asked once there: no unanswered copy of it, no two questions in a row.
    expect(await page.locator(".message.user").count()).toBe(1)
    await switcher.getByRole("button", { name: "Previous answer" }).click()
    await page.getByText("Paris is the capital.").waitFor()
    expect(page.url()).toBe(original)
    await expect.poll(() => switcher.textContent()).toContain("1/2")
    await switcher.getByRole("button", { name: "Next answer" }).click()
    await page.getByText("It is Paris.").waitFor()
    await page.locator(".message.assistant", { hasText: "It is Paris." }).hover()
    await shot("answer-actions")
    await switcher.getByRole("button", { name: "Previous answer" }).click()
    await page.getByText("Paris is the capital.").waitFor()
    // Branch from an earlier answer: the branch holds it, ready for the next question.
    model.script({ text: "About 2 million." })
    await box.fill("How many people live there?")
    await page.keyboard.press("Enter")
    await page.getByText("About 2 million.").waitFor()
    await page.getByRole("button", { name: "Send" }).waitFor()
    // The last answer offers Regenerate, not a branch of the whole thread.
    const last = page.locator(".message.assistant", { hasText: "About 2 million." })
    expect(await last.getByRole("button", { name: "Branch from here" }).count()).toBe(0)
    await first.getByRole("button", { name: "Branch from here" }).click()
    await expect.poll(() => page.url()).not.toBe(original)
    await page.getByText("Paris is the capital.").waitFor()
    expect(await page.getByText("About 2 million.").count()).toBe(0)
    expect(await page.locator(".message").last().getAttribute("class")).toContain("assistant")
    model.script({ text: "Lyon is second." })
    await box.fill("And the second city?")
    await page.keyboard.press("Enter")
    await page.getByText("Lyon is second.").waitFor()
    expect(await page.locator(".message").evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual([
      "message user",
      "message assistant",
      "message user",
      "message assistant",
    ])
    await page.getByRole("button", { name: "Send" }).waitFor()
  })

  it("keyboard only: new chat, send, stop, approve, switch thread, and the ? overlay", async () => {
    const box = page.getByRole("textbox", { name: "Message" })
    // Ctrl+Shift+O: a new chat, whatever has the focus.
    await page.locator("body").click({ position: { x: 5, y: 400 } })
    const before = page.url()
    await page.keyboard.press("Control+Shift+O")
    await expect.poll(() => page.url()).not.toBe(before)
    await expect.poll(() => page.locator(".chat-head h1").textContent()).toBe("New chat")
    // Shift+Esc: to the message box; Enter sends; Esc stops.
    await page.keyboard.press("Shift+Escape")
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true)
    model.script({ text: ["tock "], endless: true, chunkDelayMs: 50 })
    await page.keyboard.type("Tock for ever")
    await page.keyboard.press("Enter")
    await page.getByText("tock tock", { exact: false }).waitFor()
    await page.keyboard.press("Escape")
    await page.getByRole("button", { name: "Send" }).waitFor()
    // Alt+Y approves the tool call waiting.
    model.script(
      { toolCalls: [{ name: "probe_delete_file", arguments: { path: "/tmp/keys.txt" } }] },
      { text: "Deleted by keyboard." },
    )
    await box.focus()
    await page.keyboard.type("Delete /tmp/keys.txt")
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Approve" }).waitFor()
    await page.keyboard.press("Alt+KeyY")
    await page.getByText("Deleted by keyboard.").waitFor()
    expect(probe.executions).toContainEqual({ path: "/tmp/keys.txt" })
    // Alt+↓ / Alt+↑: the next and the previous thread in the list.
    const here = page.url()
    await page.keyboard.press("Alt+ArrowDown")
    await expect.poll(() => page.url()).not.toBe(here)
    await page.keyboard.press("Alt+ArrowUp")
    await expect.poll(() => page.url()).toBe(here)
    // ?: the overlay lists the shortcuts; Esc closes it (and stops nothing).
    await page.locator("body").click({ position: { x: 5, y: 400 } })
    await page.keyboard.press("?")
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" })
    await help.waitFor()
    await help.getByText("Approve / deny the tool call waiting").waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await page.keyboard.press("Escape")
    await help.waitFor({ state: "hidden" })
  })

  it("a reload in the middle of an answer resumes its stream", async () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i} `)
    model.script({ text: [...words, "THE-END"], chunkDelayMs: 100 })
    await page.getByRole("textbox", { name: "Message" }).fill("Count slowly")
    await page.keyboard.press("Enter")
    await page.getByText("word3", { exact: false }).waitFor()
    await page.reload()
    await page.getByText("THE-END", { exact: false }).waitFor({ timeout: 15_000 })
    // Streamed once, shown once: the resumed answer did not duplicate.
    await expect.poll(() => page.locator(".message.assistant", { hasText: "THE-END" }).count()).toBe(1)
  })

  it("stops a running answer", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    model.script({ text: ["tick "], endless: true, chunkDelayMs: 50 })
    await page.getByRole("textbox", { name: "Message" }).fill("Tick for ever")
    await page.keyboard.press("Enter")
    await page.getByText("tick tick", { exact: false }).waitFor()
    await page.getByRole("button", { name: "Stop" }).click()
    await page.getByRole("button", { name: "Send" }).waitFor()
    const threadId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!)
    await expect
      .poll(async () => (await api("/api/threads?perPage=false")).body.activeStreamIds)
      .not.toContain(threadId)
  })

  it("shows a failed answer in place, and Retry answers again", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    model.script({ error: { status: 400, message: "the model refused" } }, { text: "Second time lucky." })
    await page.getByRole("textbox", { name: "Message" }).fill("Try me")
    await page.keyboard.press("Enter")
    const alert = page.locator(".inline-error")
    await alert.waitFor()
    await alert.getByRole("button", { name: "Retry" }).click()
    await page.getByText("Second time lucky.").waitFor()
  })

  it("attaches a file as a data-URL file part", async () => {
    await page.getByRole("button", { name: "New chat" }).click()
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    )
    await page.getByLabel("Attach files").setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: png })
    await page.getByRole("list", { name: "Attachments" }).getByText("dot.png").waitFor()
    model.script({ text: "A single dot." })
    await page.getByRole("textbox", { name: "Message" }).fill("What is this?")
    await page.keyboard.press("Enter")
    await page.getByText("A single dot.").waitFor()
    await page.locator(".message.user img[alt='dot.png']").waitFor()
    const threadId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!)
    const stored = await api(`/api/threads/${threadId}`)
    expect(stored.body.messages[0].parts).toContainEqual(
      expect.objectContaining({
        type: "file",
        mediaType: "image/png",
        url: `data:image/png;base64,${png.toString("base64")}`,
      }),
    )
  })

  it("a scheduled task created in the UI fires into the inbox, and its thread opens from there", async () => {
    await section("Schedule").click()
    const editor = page.getByRole("form", { name: "New task" })
    await editor.getByLabel("Name").fill("Morning brief")
    await editor.getByLabel("Prompt").fill("Brief me")
    const cron = editor.getByLabel("Cron expression")
    await cron.fill("0 9 * * 1-5")
    await editor.getByText("At 09:00, Monday through Friday").waitFor()
    expect(await editor.getByRole("list", { name: "Next runs" }).getByRole("listitem").count()).toBe(3)
    await shot("schedule")
    expect(await seriousViolations(page)).toEqual([])
    // A one-time task a few seconds ahead (the browser's local time, to the second).
    await page.getByRole("radio", { name: "Once" }).check()
    const runAt = await page.evaluate(() => {
      const at = new Date(Date.now() + 3_000)
      const pad = (n: number) => String(n).padStart(2, "0")
      return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
    })
    await page.getByLabel("Date and time").fill(runAt)
    model.script({ text: "Your brief: all quiet." })
    await page.getByRole("button", { name: "Create task" }).click()
    await page.getByRole("heading", { name: "Morning brief" }).waitFor()
    await section("Inbox").locator(".badge").waitFor({ timeout: 15_000 })
    await section("Inbox").click()
    await page.getByText("Your brief: all quiet.").waitFor()
    await shot("inbox")
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole("button", { name: "Open thread" }).click()
    await page.locator(".message.assistant", { hasText: "Your brief: all quiet." }).waitFor()
  })

  it("a created task is scrolled to, highlighted and confirmed; its next run reads like the preview; one web inbox", async () => {
    await section("Chat").click()
    await section("Schedule").click()
    const editor = page.getByRole("form", { name: "New task" })
    // The web inbox is listed once, in the task editor and in the heartbeat's.
    const destination = editor.getByLabel("Destination")
    const inboxOptions = (texts: ReadonlyArray<string>) => texts.filter((text) => /web inbox/i.test(text))
    // The options come with the destinations' request: polled until they are there.
    await expect
      .poll(async () => inboxOptions(await destination.locator("option").allTextContents()))
      .toEqual(["The web inbox"])
    const heartbeatDestination = page.getByLabel("Heartbeat destination")
    await expect
      .poll(async () => inboxOptions(await heartbeatDestination.locator("option").allTextContents()))
      .toEqual(["The web inbox"])
    await editor.getByLabel("Name").fill("Daily digest")
    await editor.getByLabel("Prompt").fill("Digest my day")
    await editor.getByLabel("Cron expression").fill("30 7 * * *")
    await editor.getByLabel("Time zone").fill("UTC")
    const firstRun = await editor.getByRole("list", { name: "Next runs" }).getByRole("listitem").first().textContent()
    await editor.getByRole("button", { name: "Create task" }).click()
    const card = page.locator("li.card.just-created")
    await card.getByText("Task created.").waitFor()
    expect(await card.getByRole("heading").textContent()).toBe("Daily digest")
    await expect
      .poll(() =>
        card.evaluate((element) => {
          const box = element.getBoundingClientRect()
          return box.top >= 0 && box.bottom <= window.innerHeight
        }),
      )
      .toBe(true)
    expect(await card.getByText("Next run", { exact: false }).textContent()).toBe(`Next run ${firstRun}`)
    expect(await card.textContent()).toContain("the web inbox")
    await shot("schedule-created")
  })

  it("edits a task in the same editor (a new cron, its next runs, stored), and the heartbeat's hours and checklist", async () => {
    const created = await api("/api/schedule", {
      method: "POST",
      body: { name: "Weekly review", prompt: "Review the week", cron: "0 9 * * 1", timezone: "UTC" },
    })
    expect(created.status).toBe(201)
    await section("Chat").click()
    await section("Schedule").click()
    await page.getByRole("button", { name: "Edit Weekly review" }).click()
    const editor = page.getByRole("form", { name: "Edit Weekly review" })
    expect(await editor.getByLabel("Prompt").inputValue()).toBe("Review the week")
    await editor.getByLabel("Cron expression").fill("30 18 * * *")
    await expect
      .poll(() => editor.getByRole("list", { name: "Next runs" }).getByRole("listitem").allTextContents())
      .toEqual([expect.stringContaining("18:30"), expect.stringContaining("18:30"), expect.stringContaining("18:30")])
    await editor.getByLabel("Max runs (empty: no limit)").fill("4")
    await editor.screenshot({ path: join(screenshots, "task-edit.png") })
    await editor.getByRole("button", { name: "Save task" }).click()
    await page.getByText("(30 18 * * *)").waitFor()
    const stored = await api(`/api/schedule/${created.body.id}`)
    expect(stored.body).toMatchObject({ cron: "30 18 * * *", maxRuns: 4, timezone: "UTC", name: "Weekly review" })
    expect(new Date(stored.body.nextRun).toISOString()).toMatch(/T18:30:00/)
    // Edited again: one time, tomorrow; no zone of its own, no destination (both cleared).
    await page.getByRole("button", { name: "Edit Weekly review" }).click()
    await editor.getByRole("radio", { name: "Once" }).check()
    const tomorrow = await page.evaluate(() => {
      const at = new Date(Date.now() + 86_400_000)
      const pad = (n: number) => String(n).padStart(2, "0")
      return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T10:00:00`
    })
    await editor.getByLabel("Date and time").fill(tomorrow)
    await editor.getByLabel("Time zone").fill("")
    await editor.getByLabel("Destination").selectOption("")
    await editor.getByRole("button", { name: "Save task" }).click()
    await page.getByText("Once at", { exact: false }).waitFor()
    const once = await api(`/api/schedule/${created.body.id}`)
    // Cleared fields: absent (or null) in the answer.
    for (const field of ["cron", "maxRuns", "timezone", "destination"]) expect(once.body[field] ?? null).toBeNull()
    expect(new Date(once.body.runAt).getTime() - Date.now()).toBeGreaterThan(3_600_000)

    const heartbeat = page.getByRole("region", { name: "Heartbeat" })
    await heartbeat.getByLabel("Only during active hours").check()
    await heartbeat.getByLabel("From").fill("07:00")
    await heartbeat.getByLabel("To", { exact: true }).fill("19:30")
    await heartbeat.getByRole("button", { name: "Save heartbeat" }).click()
    await heartbeat.getByText("Active hours 07:00–19:30").waitFor()
    await heartbeat.getByLabel("New checklist item").fill("Check the calendar")
    await heartbeat.getByRole("button", { name: "Add item" }).click()
    await heartbeat.getByRole("list", { name: "Checklist" }).getByText("Check the calendar").waitFor()
    const beat = await api("/api/schedule/heartbeat")
    expect(beat.body.activeHours).toEqual({ start: "07:00", end: "19:30" })
    expect(beat.body.tasks).toEqual([expect.objectContaining({ description: "Check the calendar", enabled: true })])
    const checklist = heartbeat.getByRole("list", { name: "Checklist" })
    await checklist.getByRole("button", { name: "Edit Check the calendar" }).click()
    await checklist.getByLabel("Description").fill("Check the calendar and the mail")
    await checklist.getByRole("button", { name: "Save" }).click()
    // A controlled box: it shows the stored state once the PATCH is answered (no optimistic flip).
    await checklist.getByRole("checkbox", { name: "Check the calendar and the mail" }).click()
    await expect
      .poll(async () => (await api("/api/schedule/heartbeat")).body.tasks)
      .toEqual([{ id: beat.body.tasks[0].id, description: "Check the calendar and the mail", enabled: false }])
    await checklist.getByRole("button", { name: "Remove Check the calendar and the mail" }).click()
    await expect.poll(async () => (await api("/api/schedule/heartbeat")).body.tasks).toEqual([])
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole("button", { name: "Delete Weekly review" }).click()
    await expect.poll(() => page.getByRole("heading", { name: "Weekly review" }).count()).toBe(0)
  })

  it("edits working memory", async () => {
    await section("Memory").click()
    const editor = page.getByLabel("Working memory")
    await editor.waitFor()
    await editor.fill("# Owner\n- prefers short answers")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByText("Saved").waitFor()
    const working = await api("/api/memory/working")
    expect(working.body.content).toBe("# Owner\n- prefers short answers")
    await shot("memory")
  })

  it("adds a real MCP server (stdio) in the UI, and its tool runs in chat once approved", async () => {
    await section("Tools").click()
    expect(new URL(page.url()).pathname).toBe("/app/tools")
    // The id's pattern is one Chromium can compile (it uses the `v` flag): a bad id is caught.
    const id = page.getByLabel("Id", { exact: true })
    await id.fill("Bad Id")
    expect(await id.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true)
    await id.fill("local")
    expect(await id.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(true)
    await page.getByLabel("Command (stdio) or URL (HTTP)").fill(`${process.execPath} ${mcpStdioServerPath}`)
    await page.getByRole("button", { name: "Add server" }).click()
    // Added: the form is empty for the next one.
    await expect.poll(() => id.inputValue()).toBe("")
    expect(await page.getByLabel("Command (stdio) or URL (HTTP)").inputValue()).toBe("")
    // The card lists the server's tools once it has connected (the page polls until then).
    await page.locator(".tags li", { hasText: "add" }).first().waitFor({ timeout: 15_000 })
    await page.getByRole("heading", { name: "Plugins" }).waitFor()
    await shot("tools")
    expect(await seriousViolations(page)).toEqual([])
    await section("Chat").click()
    model.script({ toolCalls: [{ name: "local_add", arguments: { a: 2, b: 3 } }] }, { text: "The sum is 5." })
    await page.getByRole("textbox", { name: "Message" }).fill("Add 2 and 3")
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Approve" }).click()
    await page.getByText("The sum is 5.").waitFor()
    // What the model was told: the MCP server's answer.
    const toolMessage = model.requests.at(-1)?.body.messages.find((message) => message.role === "tool")
    expect(JSON.stringify(toolMessage?.content)).toContain("5")
  })

  it("a plugin's settings form: a select for an enum, a checkbox, a number, a redacted password; env status and alerts", async () => {
    await section("Chat").click()
    await section("Tools").click()
    const form = page.getByRole("form", { name: "Weather settings" })
    const card = page.locator("li.card", { has: form })
    // Disabled, nobody asked it to run: what enabling it needs is said plainly, not as errors.
    await card.getByRole("list", { name: "Environment" }).getByText("not set (required to enable)").waitFor()
    await card
      .getByRole("list", { name: "Needed to enable it" })
      .getByText("plugins.weather.apiToken: required")
      .waitFor()
    expect(await card.locator(".error").count()).toBe(0)
    const units = form.getByRole("combobox", { name: "Units" })
    expect(await units.locator("option").allTextContents()).toEqual(["Not set", "Metric", "Imperial"])
    expect(await form.getByRole("spinbutton", { name: "Days ahead" }).count()).toBe(1)
    const token = form.getByLabel("API token")
    expect(await token.getAttribute("type")).toBe("password")
    await units.selectOption("imperial")
    await token.fill("s3cret-token")
    await form.getByRole("checkbox", { name: "Severe weather alerts" }).check()
    await form.getByRole("button", { name: "Save settings" }).click()
    await form.getByText("Settings saved").waitFor()
    await card.screenshot({ path: join(screenshots, "plugin-settings.png") })
    // Shown redacted, stored as typed.
    await expect.poll(() => form.getByLabel("API token").inputValue()).toBe("••••••")
    expect(await form.getByRole("combobox", { name: "Units" }).inputValue()).toBe("imperial")
    const plugins = await api("/api/plugins")
    const weather = plugins.body.plugins.find((plugin: { id: string }) => plugin.id === "weather")
    expect(weather).toMatchObject({
      config: { apiToken: "••••••", units: "imperial", alerts: true },
      validationErrors: ["environment variable CONSOLE_TEST_WEATHER_KEY is required and not set"],
    })
    await expect.poll(() => card.getByText("plugins.weather.apiToken: required").count()).toBe(0)
    const stored = await server.run(
      Effect.map(
        Effect.flatMap(AppConfig.AppConfig, (config) => config.get),
        (config) => config.plugins.weather,
      ),
    )
    expect(stored).toMatchObject({ apiToken: "s3cret-token", units: "imperial" })
    // Saving again with the redacted value keeps the secret.
    await form.getByRole("spinbutton", { name: "Days ahead" }).fill("3")
    await form.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(async () => (await api("/api/config")).body.plugins.weather.days).toBe(3)
    expect(JSON.stringify((await api("/api/config")).body)).not.toContain("s3cret-token")
    expect(await seriousViolations(page)).toEqual([])
  })

  it("a plugin enabled in the UI shows it loaded (no reload), its tools and the names the model calls them", async () => {
    // The page's old address still leads to it.
    await page.goto(`${server.url}/app/integrations`)
    await expect.poll(() => new URL(page.url()).pathname).toBe("/app/tools")
    const card = page.locator("li.card", { has: page.getByRole("heading", { name: "Greeter" }) })
    await card.getByText("Disabled: its code does not run.").waitFor()
    // No settings to save: the card says the switch is all there is.
    await card.getByText("No settings: the switch above applies at once.").waitFor()
    // The switch follows the server's answer (a controlled checkbox): clicked, not `check()`ed.
    await card.getByRole("checkbox", { name: "Enabled" }).click()
    await card.getByText("Loaded: 1 tool.").waitFor({ timeout: 20_000 })
    const tool = card.getByRole("list", { name: "Tools" }).getByRole("listitem")
    expect(await tool.textContent()).toBe("Say hello · the model calls it greeter_helloGreets someone by name")
    await card.screenshot({ path: join(screenshots, "plugin-loaded.png") })
    const listed = (await api("/api/plugins")).body.plugins.find((p: { id: string }) => p.id === "greeter")
    expect(listed.provides.tools.toolIds).toEqual(["greeter:hello"])
    await card.getByRole("checkbox", { name: "Enabled" }).click()
    await card.getByText("Disabled: its code does not run.").waitFor()
  })

  it("a channel plugin's card: a stranger's pairing request approved there; a failing connection says why", async () => {
    const telegram = await startFakeTelegram()
    const enable = (botToken: string) =>
      api("/api/config", {
        method: "PATCH",
        body: {
          plugins: {
            telegram: { enabled: true, botToken, ownerId: "4242", apiRoot: telegram.apiRoot, pairing: true },
          },
        },
      })
    const telegramView = async () =>
      (await api("/api/plugins")).body.plugins.find((p: { id: string }) => p.id === "telegram")
    const reopen = async () => {
      await section("Chat").click()
      await section("Tools").click()
    }
    const card = page.locator("li.card", { has: page.getByRole("heading", { name: "Telegram", exact: true }) })
    try {
      expect((await enable(telegram.token)).status).toBe(200)
      await expect
        .poll(async () => (await telegramView()).provides.channels.connection?.state, { timeout: 20_000 })
        .toBe("connected")
      telegram.pushUpdate({
        message: {
          message_id: 1,
          date: 1,
          chat: { id: 777, type: "private" },
          from: { id: 777, is_bot: false, first_name: "Eve" },
          text: "let me in",
        },
      })
      await expect
        .poll(async () => (await api("/api/plugins/telegram/pairings")).body.pairings.length, { timeout: 10_000 })
        .toBe(1)
      const code = (await api("/api/plugins/telegram/pairings")).body.pairings[0].code as string
      await reopen()
      await card.getByText("Connected.").waitFor()
      await card
        .getByRole("list", { name: "Pairing requests" })
        .screenshot({ path: join(screenshots, "plugin-pairing.png") })
      await card.getByRole("button", { name: `Approve ${code}` }).click()
      await card.getByRole("button", { name: "Remove 777" }).waitFor()
      expect((await api("/api/plugins/telegram/pairings")).body.senders).toMatchObject([{ senderId: "777" }])
      // The owner was told in the inbox too.
      const notices = (await api("/api/inbox")).body.messages as Array<{ subject: string; body: string }>
      expect(notices.find((entry) => entry.subject === "Pairing request on Telegram")?.body).toContain(code)
      expect(telegram.sent.filter((sent) => String(sent.chat_id) === "777")).toEqual([])
      expect(await seriousViolations(page)).toEqual([])

      expect((await enable("999:wrong-token")).status).toBe(200)
      await expect
        .poll(async () => (await telegramView()).provides.channels.connection?.state, { timeout: 20_000 })
        .toBe("reconnecting")
      await reopen()
      await card.getByText(/Connection failing \(\d+ in a row\): .*401/).waitFor()
    } finally {
      await api("/api/config", { method: "PATCH", body: { plugins: { telegram: { enabled: false } } } })
      await telegram.close()
      // The owner's notice of the request: gone, so that the inbox test counts only its own.
      const inbox = (await api("/api/inbox")).body.messages as Array<{ id: string; subject: string }>
      for (const message of inbox.filter((entry) => entry.subject === "Pairing request on Telegram"))
        await api(`/api/inbox/${message.id}`, { method: "DELETE" })
      // The unread badge polls every 5 s: wait until it no longer counts the notice.
      await expect.poll(() => section("Inbox").locator(".badge").count(), { timeout: 10_000 }).toBe(0)
    }
  })

  it("inbox actions: mark read and unread, archive (and find it under Archived), delete", async () => {
    const seed = (subject: string) =>
      server.run(
        Effect.flatMap(Inbox.Inbox, (inbox) => inbox.create({ subject, body: `About ${subject}`, destination: "web" })),
      )
    const disk = await seed("Disk almost full")
    const digest = await seed("Weekly digest")
    const message = async (id: string) => (await api(`/api/inbox/${id}`)).body
    await section("Chat").click()
    await section("Inbox").click()
    const card = (subject: string) => page.locator("li.card", { hasText: subject })
    const badge = section("Inbox").locator(".badge")
    await expect.poll(() => badge.textContent()).toBe("2 unread")
    await card("Disk almost full").getByRole("button", { name: "Mark read" }).click()
    await card("Disk almost full").getByRole("button", { name: "Mark unread" }).waitFor()
    expect((await message(disk.id)).read).toBe(true)
    await expect.poll(() => badge.textContent()).toBe("1 unread")
    await card("Disk almost full").getByRole("button", { name: "Mark unread" }).click()
    await card("Disk almost full").getByRole("button", { name: "Mark read" }).waitFor()
    expect((await message(disk.id)).read).toBe(false)
    await card("Disk almost full").getByRole("button", { name: "Archive" }).click()
    await expect.poll(() => card("Disk almost full").count()).toBe(0)
    expect((await message(disk.id)).archivedAt).not.toBeNull()
    await page.getByRole("checkbox", { name: "Archived" }).check()
    await card("Disk almost full").getByRole("button", { name: "Unarchive" }).waitFor()
    await page.getByRole("checkbox", { name: "Archived" }).uncheck()
    await card("Weekly digest").getByRole("button", { name: "Delete" }).click()
    await expect.poll(() => card("Weekly digest").count()).toBe(0)
    expect((await api(`/api/inbox/${digest.id}`)).status).toBe(404)
  })

  it("turns Aide's MCP server on and chooses its tools in Settings", async () => {
    await section("Settings").click()
    const card = page.locator("form", { has: page.getByRole("heading", { name: "MCP server" }) })
    await card.getByRole("checkbox", { name: "Serve /mcp" }).check()
    await card.getByRole("checkbox", { name: /^ask:/ }).check()
    await card.getByRole("checkbox", { name: /^inbox_list:/ }).uncheck()
    await card.getByRole("button", { name: "Save" }).click()
    await page.getByText("MCP server settings saved").waitFor()
    const { mcpServer } = (await api("/api/config")).body
    expect(mcpServer).toEqual({ enabled: true, tools: ["threads_search", "memory_read", "schedule_list", "ask"] })
    await api("/api/config", { method: "PATCH", body: { mcpServer: null } })
  })

  it("Browser notifications: the toggle asks permission, subscribes with the server's VAPID key and posts the subscription; off unsubscribes", async () => {
    await page.context().grantPermissions(["notifications"], { origin: server.url })
    const ecdh = createECDH("prime256v1")
    const keys = { p256dh: ecdh.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") }
    const endpoint = "https://push.example/send/console"
    await page.goto(`${server.url}/app/`)
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true))
    // Headless Chromium has no push service: PushManager is stood in for, recording what the console asks.
    await page.evaluate(
      ({ endpoint, keys }) => {
        const calls: { subscribed: unknown; unsubscribed: number } = { subscribed: null, unsubscribed: 0 }
        ;(globalThis as any).pushCalls = calls
        let current: unknown = null
        PushManager.prototype.getSubscription = async () => current as PushSubscription | null
        PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
          const key = new Uint8Array(options?.applicationServerKey as ArrayBuffer)
          calls.subscribed = { userVisibleOnly: options?.userVisibleOnly, key: btoa(String.fromCharCode(...key)) }
          current = {
            endpoint,
            toJSON: () => ({ endpoint, keys }),
            unsubscribe: async () => {
              calls.unsubscribed++
              current = null
              return true
            },
          }
          return current as PushSubscription
        }
      },
      { endpoint, keys },
    )
    await section("Settings").click()
    const toggle = page.getByRole("checkbox", { name: /Notify this browser/ })
    await expect.poll(() => toggle.isEnabled()).toBe(true)
    expect(await toggle.isChecked()).toBe(false)
    await toggle.click()
    await expect.poll(() => toggle.isChecked()).toBe(true)
    const serverKey = (await api("/api/push/vapid-public-key")).body.publicKey as string
    expect(await page.evaluate(() => (globalThis as any).pushCalls.subscribed)).toEqual({
      userVisibleOnly: true,
      key: Buffer.from(serverKey, "base64url").toString("base64"),
    })
    expect(await seriousViolations(page)).toEqual([])
    // Stored by the server: removing it through the API works once (then it is put back).
    const remove = () => api("/api/push/subscriptions", { method: "DELETE", body: { endpoint } })
    expect((await remove()).status).toBe(200)
    expect((await api("/api/push/subscriptions", { method: "POST", body: { endpoint, keys } })).status).toBe(201)
    await toggle.click()
    await expect.poll(() => toggle.isChecked()).toBe(false)
    expect(await page.evaluate(() => (globalThis as any).pushCalls.unsubscribed)).toBe(1)
    expect((await remove()).status).toBe(404)
  })

  it("revokes another session, then this one: back to the login screen", async () => {
    await api("/api/auth/sessions") // the suite's API session: another one to revoke
    await section("Settings").click()
    const revokes = page.getByRole("button", { name: /^Revoke session/ })
    await expect.poll(() => revokes.count()).toBeGreaterThan(1)
    await shot("settings")
    expect(await seriousViolations(page)).toEqual([])
    const before = await revokes.count()
    const other = page.locator(".sessions li", { hasNotText: "(this browser)" }).first()
    await other.getByRole("button").click()
    await expect.poll(() => revokes.count()).toBe(before - 1)
    await page.locator(".sessions li", { hasText: "(this browser)" }).getByRole("button").click()
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    // A wrong password is said in words under the field (not "401 invalid_credentials").
    await page.getByLabel("Password").fill("not-the-password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("That password is not right.")
    expect(await page.getByLabel("Password").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Settings" }).waitFor()
    await section("Chat").click()
    await page.getByRole("textbox", { name: "Message" }).waitFor()
  })

  it("renames, searches and deletes threads in the list; the heading follows, and renames in place", async () => {
    const threads = page.getByRole("complementary", { name: "Threads" })
    const heading = page.locator(".chat-head h1")
    await threads.getByRole("link", { name: "Say hello" }).click()
    await expect.poll(() => heading.textContent()).toBe("Say hello")
    await threads.getByRole("button", { name: "Rename Say hello" }).click()
    await threads.getByLabel("Thread title").fill("Greetings")
    await threads.getByRole("button", { name: "Save" }).click()
    await threads.getByRole("link", { name: "Greetings" }).waitFor()
    await expect.poll(() => heading.textContent()).toBe("Greetings")
    // Renamed from the heading: the list follows.
    await heading.getByRole("button").click()
    await page.getByLabel("Chat title").fill("Hello world")
    await page.getByRole("form", { name: "Rename this chat" }).getByRole("button", { name: "Save" }).click()
    await threads.getByRole("link", { name: "Hello world" }).waitFor()
    expect(await heading.textContent()).toBe("Hello world")
    await threads.getByRole("button", { name: "Rename Hello world" }).click()
    await threads.getByLabel("Thread title").fill("Greetings")
    await threads.getByRole("button", { name: "Save" }).click()
    await threads.getByRole("link", { name: "Greetings" }).waitFor()
    await page.getByLabel("Search threads").fill("greet")
    await expect.poll(() => threads.getByRole("link").count()).toBe(1)
    await page.getByLabel("Search threads").fill("")
    page.once("dialog", (dialog) => void dialog.accept())
    await threads.getByRole("button", { name: "Delete Tick for ever" }).click()
    await expect.poll(() => threads.getByRole("link", { name: "Tick for ever" }).count()).toBe(0)
    const list = await api("/api/threads?perPage=false")
    expect(list.body.threads.map((thread: { title: string }) => thread.title)).not.toContain("Tick for ever")
  })

  // Last of the tests that use the suite's API session: the password changes here.
  it("changes the password (the new one signs in), and signs out everywhere", async () => {
    const newPassword = "a-new-password-42"
    await section("Settings").click()
    const form = page.getByRole("form", { name: "Change password" })
    // The rule is said before it is broken; each problem under its field, in words.
    await form.getByText("At least 8 characters.").waitFor()
    await page.getByLabel("Current password").fill(password)
    await page.getByLabel("New password").fill("short")
    await page.getByRole("button", { name: "Change password" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toBe("Too short: at least 8 characters.")
    expect(await page.getByLabel("New password").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("Current password").fill("not-the-password")
    await page.getByLabel("New password").fill(newPassword)
    await page.getByRole("button", { name: "Change password" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toBe("That is not your current password.")
    expect(await page.getByLabel("Current password").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("Current password").fill(password)
    await page.getByLabel("New password").fill(newPassword)
    await page.getByRole("button", { name: "Change password" }).click()
    await page.getByText("Password changed").waitFor()
    expect(await page.getByLabel("Current password").inputValue()).toBe("")
    // The console kept its session (change-password answers a new token pair).
    await page.reload()
    await page.getByRole("heading", { name: "Settings" }).waitFor()
    await page.getByRole("button", { name: "Sign out everywhere" }).click()
    await page.getByRole("button", { name: "Sign in" }).waitFor()
    await page.getByLabel("Password").fill(newPassword)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Settings" }).waitFor()
    await section("Chat").click()
    await page.getByRole("textbox", { name: "Message" }).waitFor()
  })

  it("on a phone (390×844) every section is in the menu, nothing scrolls sideways, icons are SVG", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    const nav = page.getByRole("navigation", { name: "Sections" })
    // The bar does not overflow: no section hidden off screen to its right.
    expect(await page.locator(".topbar").evaluate((bar) => bar.scrollWidth <= bar.clientWidth)).toBe(true)
    expect(await nav.isVisible()).toBe(false)
    const inViewport = (name: string) =>
      nav.getByRole("link", { name }).evaluate((link) => {
        const box = link.getBoundingClientRect()
        return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth && box.bottom <= window.innerHeight
      })
    await page.getByRole("button", { name: "Menu" }).click()
    for (const name of ["Chat", "Inbox", "Schedule", "Memory", "Tools", "Settings"])
      expect(await inViewport(name), name).toBe(true)
    // On the chat, the thread list is in the menu too, below the sections.
    await page.getByRole("complementary", { name: "Threads" }).getByRole("link").first().waitFor()
    await shot("phone-menu")
    await nav.getByRole("link", { name: "Settings" }).click()
    await page.getByRole("heading", { name: "Settings" }).waitFor()
    expect(await nav.isVisible()).toBe(false)
    await page.getByRole("button", { name: "Menu" }).click()
    expect(await inViewport("Tools")).toBe(true)
    await nav.getByRole("link", { name: "Chat" }).click()
    // Icons are inline SVG: no emoji glyph (an empty box without an emoji font) in any button.
    const glyphs = await page
      .locator("button")
      .evaluateAll((buttons) =>
        buttons
          .map((button) => button.textContent ?? "")
          .filter((text) => /[\u{1F300}-\u{1FAFF}\u2600-\u27BF\u2630]/u.test(text)),
      )
    expect(glyphs).toEqual([])
    expect(await page.getByRole("button", { name: "Menu" }).locator("svg").count()).toBe(1)
    await page.getByRole("button", { name: "Switch to dark theme" }).click()
    await page.getByRole("button", { name: "Menu" }).click()
    // The newest thread, started in a new chat during this suite: opened again, it shows its messages.
    await page.getByRole("complementary", { name: "Threads" }).getByRole("link").first().click()
    await page.locator(".message").first().waitFor()
    await shot("phone-dark")
    expect(await seriousViolations(page)).toEqual([])
  })

  it("installable: a manifest with its icons, and the shell opens offline (service worker)", async () => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto(`${server.url}/app/`)
    const manifest = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!
      return (await fetch(link.href)).json()
    })
    expect(manifest).toMatchObject({ name: "Aide", start_url: "/app/", scope: "/app/", display: "standalone" })
    const icons = await page.evaluate(
      async (sources: Array<string>) =>
        Promise.all(
          sources.map(async (src) => [(await fetch(src)).status, (await fetch(src)).headers.get("content-type")]),
        ),
      manifest.icons.map((icon: { src: string }) => icon.src),
    )
    for (const [status, type] of icons) {
      expect(status).toBe(200)
      expect(type).toMatch(/^image\//)
    }
    expect(manifest.icons.some((icon: { purpose?: string }) => icon.purpose === "maskable")).toBe(true)
    // The worker takes the page over; then, offline, a reload still opens the app and says why
    // it cannot do more, instead of a browser error or a setup screen.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true))
    await page.reload()
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
    await page.context().setOffline(true)
    try {
      await page.reload()
      await page.getByRole("heading", { name: "Aide is out of reach" }).waitFor()
      expect(await seriousViolations(page)).toEqual([])
      await page.getByRole("button", { name: "Try again" }).waitFor()
    } finally {
      await page.context().setOffline(false)
    }
    // Back online: the app looks again by itself and opens.
    await page.getByRole("navigation", { name: "Sections" }).waitFor()
  })

  it("Settings → Connections: adds a local server's address, tests it (its models listed), removes it", async () => {
    await section("Settings").click()
    const card = page.getByRole("region", { name: "Connections" })
    await card.getByText("set by the environment (wins)").waitFor()
    const form = card.getByRole("form", { name: "Add a connection" })
    await form.getByLabel("Provider").selectOption({ label: "Ollama" })
    await form.getByLabel("OLLAMA_BASE_URL").fill(model.url)
    await form.getByRole("button", { name: "Save and test" }).click()
    await card.getByText("Ollama: Works: 2 models (fake-model, fake-model-mini).").waitFor()
    await card.getByText("OLLAMA_BASE_URL ••••").waitFor()
    await shot("settings-connections")
    expect(await seriousViolations(page)).toEqual([])
    await card.getByRole("button", { name: "Remove the connection of Ollama" }).click()
    await expect.poll(() => card.getByText("OLLAMA_BASE_URL ••••").count()).toBe(0)
    // The list is the server's, read again after the removal: the connection is gone there too.
    await page.reload()
    await card.getByText("set by the environment (wins)").waitFor()
    expect(await card.getByText("OLLAMA_BASE_URL").count()).toBe(0)
  })

  it("broke no Content-Security-Policy rule on the way", () => {
    expect(cspErrors).toEqual([])
  })
})

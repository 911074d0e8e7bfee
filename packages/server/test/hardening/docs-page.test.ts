import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/server.js"

/** A headless Chromium on this machine, if any (`apt-get install chromium`). */
const chromium = ["chromium", "chromium-browser", "google-chrome"].find((name) => {
  try {
    execFileSync("which", [name], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})

/** Every absolute http(s) URL in `text`. */
const absoluteUrls = (text: string) => text.match(/https?:\/\/[^\s"'<>)\\]+/g) ?? []

describe("GET /api/docs is self-contained and locked down by a CSP", () => {
  let server: TestServer
  let response: Response
  let html: string
  beforeAll(async () => {
    server = await startServer()
    response = await fetch(`${server.url}/api/docs`)
    html = await response.text()
  })
  afterAll(() => server.close())

  const directives = () =>
    new Map(
      (response.headers.get("content-security-policy") ?? "")
        .split(";")
        .map((directive) => directive.trim().split(/\s+/))
        .filter((parts) => parts[0] !== "")
        .map(([name, ...sources]) => [name!, sources]),
    )

  it("sends a Content-Security-Policy allowing scripts, connections and fonts from this origin only", () => {
    expect(response.status).toBe(200)
    const csp = directives()
    expect(csp.get("default-src")).toEqual(["'none'"])
    expect(csp.get("script-src")).toEqual(["'self'", "'wasm-unsafe-eval'"])
    expect(csp.get("connect-src")).toEqual(["'self'"])
    expect(csp.get("font-src")).toEqual(["'self'", "data:"])
    expect(csp.get("base-uri")).toEqual(["'none'"])
    expect(csp.get("frame-ancestors")).toEqual(["'none'"])
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("references no URL of another origin and runs no inline script", () => {
    expect(absoluteUrls(html).filter((url) => !url.startsWith(`${server.url}/`))).toEqual([])
    const scripts = html.match(/<script\b[^>]*>/g) ?? []
    expect(scripts.length).toBeGreaterThan(0)
    for (const tag of scripts) {
      // Either a same-origin script file or a JSON data block (never executed).
      expect(tag).toMatch(/ src="\/api\/docs\/scalar\.js\?v=[0-9a-f]+"| type="application\/json"/)
    }
    expect(html).not.toMatch(/<link\b|@import|url\(/)
  })

  it("serves the page's script from this origin, as JavaScript, without a token", async () => {
    const src = /<script src="([^"]+)"/.exec(html)?.[1]
    expect(src).toBeDefined()
    const script = await fetch(new URL(src!, server.url))
    expect(script.status).toBe(200)
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/)
    expect(script.headers.get("x-content-type-options")).toBe("nosniff")
    expect(await script.text()).toContain("@scalar/api-reference")
  })

  it.skipIf(chromium === undefined)(
    "renders in headless Chromium with no CSP violation and no request to another origin",
    async () => {
      const profile = mkdtempSync(join(tmpdir(), "aide-chromium-"))
      try {
        const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
          execFile(
            chromium!,
            [
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              `--user-data-dir=${profile}`,
              "--enable-logging=stderr",
              "--v=0",
              // Lets the page's scripts run to completion (virtual time) before the DOM is dumped.
              "--virtual-time-budget=15000",
              "--dump-dom",
              `${server.url}/api/docs`,
            ],
            { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
            (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })),
          ),
        )
        // Rendered by the Scalar script: an operation's summary is in the DOM.
        expect(stdout).toContain("Send a message and stream the answer")
        // A request to another origin (fonts, proxy, telemetry) would be refused and logged.
        const violations = stderr.split("\n").filter((line) => /Content Security Policy|Refused to/i.test(line))
        expect(violations).toEqual([])
      } finally {
        rmSync(profile, { recursive: true, force: true })
      }
    },
    120_000,
  )
})

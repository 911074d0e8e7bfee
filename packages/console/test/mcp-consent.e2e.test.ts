import { readFileSync } from "node:fs"
import { createServer, type Server as HttpServer } from "node:http"
import { createRequire } from "node:module"
import * as Net from "node:net"
import { McpAuthorizer } from "@aide/kernel"
import { Server } from "@aide/server"
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Effect } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, setup, startServer, type TestServer } from "../../server/test/support/server.js"
import { chromiumArgs, chromiumPath, consoleDist, ensureBuilt } from "./support.js"

const executablePath = chromiumPath()
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** axe-core's serious and critical findings on the page. */
const seriousViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(async () => {
    const { violations } = await (globalThis as any).axe.run(document, { resultTypes: ["violations"] })
    return violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help }))
  })) as Array<{ impact: string }>
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** An MCP client's side of OAuth, as the SDK asks an app to implement it: all in memory. */
class TestClientProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined
  private information: OAuthClientInformationFull | undefined
  private saved: OAuthTokens | undefined
  private verifier = ""
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: "Test editor",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }
  }
  state() {
    return "state-from-client"
  }
  clientInformation() {
    return this.information
  }
  saveClientInformation(information: OAuthClientInformationFull) {
    this.information = information
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

describe.skipIf(executablePath === undefined)("an MCP client authorized through the console's consent screen", () => {
  let server: TestServer
  let origin: string
  let browser: Browser
  let page: Page
  let callback: HttpServer
  let callbackUrl: string

  /** `/mcp`'s authorizer, as the endpoint runs it, on the server's kernel. */
  const authorize = (bearer: string) =>
    server.run(
      Effect.flatMap(McpAuthorizer.McpAuthorizer, (authorizer) => authorizer.authorize(bearer)).pipe(
        Effect.either,
        Effect.provide(
          Server.mcpAuthorizerLayer({ host: "127.0.0.1", port: 0, publicUrl: origin } as Server.ServerOptions),
        ),
      ) as Effect.Effect<any, never, never>,
    )

  /** Runs the SDK's `auth()` to the redirect, then plays the owner in Chromium: the code it got back. */
  const consentInBrowser = async (provider: TestClientProvider, choose: (page: Page) => Promise<void>) => {
    expect(await auth(provider, { serverUrl: `${origin}/mcp` })).toBe("REDIRECT")
    const authorizationUrl = provider.authorizationUrl!
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
    await page.goto(authorizationUrl.href)
    await choose(page)
    await page.waitForURL((url) => url.href.startsWith(callbackUrl))
    return new URL(page.url())
  }

  beforeAll(async () => {
    ensureBuilt()
    const port = await freePort()
    origin = `http://127.0.0.1:${port}`
    server = await startServer({ consoleDir: consoleDist, port, publicUrl: origin })
    await setup(server)
    callback = createServer((_request, response) => response.end("You may close this window."))
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve))
    callbackUrl = `http://127.0.0.1:${(callback.address() as Net.AddressInfo).port}/callback`
    browser = await chromium.launch({ executablePath: executablePath!, args: chromiumArgs })
    page = await (await browser.newContext()).newPage()
    page.setDefaultTimeout(10_000)
  })
  afterAll(async () => {
    await browser?.close()
    callback?.close()
    await server?.close()
  })

  it("signs the owner in, shows the client, its redirect URI and tools; the approved tools are the grant", async () => {
    const provider = new TestClientProvider(callbackUrl)
    const back = await consentInBrowser(provider, async (page) => {
      // Not signed in yet: the console's login comes first, then the consent screen.
      await page.getByLabel("Password", { exact: true }).fill(password)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: "Allow “Test editor” to use Aide?" }).waitFor()
      await expect(page.locator(".redirect-uri").textContent()).resolves.toBe(callbackUrl)
      // axe-core on a desktop and a phone, in the light and the dark theme (the system's: the
      // screen is outside the shell, so it follows the preference from the first render).
      const found: Record<string, unknown> = {}
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ])
        for (const colorScheme of ["light", "dark"] as const) {
          await page.setViewportSize(viewport)
          await page.emulateMedia({ colorScheme })
          await page.reload()
          await page.getByRole("heading", { name: "Allow “Test editor” to use Aide?" }).waitFor()
          expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(colorScheme)
          const violations = await seriousViolations(page)
          if (violations.length > 0) found[`${viewport.width} ${colorScheme}`] = violations
        }
      expect(found).toEqual({})
      await page.setViewportSize({ width: 1280, height: 800 })
      await page.emulateMedia({ colorScheme: "light" })
      // Read-only tools come ticked; tools that change things only when the owner ticks them.
      expect(await page.getByRole("checkbox", { name: /memory_read/ }).isChecked()).toBe(true)
      expect(await page.getByRole("checkbox", { name: /memory_update/ }).isChecked()).toBe(false)
      await page.getByRole("checkbox", { name: /threads_search/ }).uncheck()
      await page.getByRole("checkbox", { name: /memory_update/ }).check()
      await page.getByRole("button", { name: "Approve" }).click()
    })
    expect(back.searchParams.get("state")).toBe("state-from-client")
    const code = back.searchParams.get("code")!
    expect(await auth(provider, { serverUrl: `${origin}/mcp`, authorizationCode: code })).toBe("AUTHORIZED")
    const tokens = provider.tokens()!
    const granted = tokens.scope!.split(" ")
    expect(granted).toContain("memory_update")
    expect(granted).toContain("memory_read")
    expect(granted).not.toContain("threads_search")
    expect(granted).not.toContain("notify")
    const principal = await authorize(tokens.access_token)
    expect(principal.right).toMatchObject({ kind: "client", clientName: "Test editor" })
    expect([...principal.right.tools].sort()).toEqual([...granted].sort())

    // Settings lists it; revoking it there fails the client's very next call.
    await page.goto(`${server.url}/app/settings`)
    await page.getByRole("button", { name: "Revoke MCP client Test editor" }).click()
    await page.getByText("No MCP client is authorized.").waitFor()
    expect((await authorize(tokens.access_token))._tag).toBe("Left")
  })

  it("sends access_denied back when the owner denies", async () => {
    const provider = new TestClientProvider(callbackUrl)
    const back = await consentInBrowser(provider, async (page) => {
      await page.getByRole("button", { name: "Deny" }).click()
    })
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: "access_denied", state: "state-from-client" })
  })
})

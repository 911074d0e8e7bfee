import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "./support/server.js"

/** A stand-in for packages/console/dist: what Vite writes (index.html, hashed assets, public files). */
const fakeBuild = () => {
  const dir = mkdtempSync(join(tmpdir(), "aide-console-dist-"))
  mkdirSync(join(dir, "assets"))
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><script type="module" src="/app/assets/index-abc.js"></script>',
  )
  writeFileSync(join(dir, "assets", "index-abc.js"), "console.log('app')")
  writeFileSync(join(dir, "favicon.svg"), "<svg/>")
  return dir
}

describe("the web console at /app/", () => {
  let server: TestServer
  const dir = fakeBuild()
  beforeAll(async () => {
    server = await startServer({ consoleDir: dir })
  })
  afterAll(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" })

  it("serves index.html, never cached, under a strict Content-Security-Policy", async () => {
    const response = await get("/app/")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect(response.headers.get("cache-control")).toBe("no-cache")
    const csp = response.headers.get("content-security-policy") ?? ""
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(csp).not.toContain("unsafe-inline")
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
  })

  it("serves hashed assets with a year's immutable cache", async () => {
    const response = await get("/app/assets/index-abc.js")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/)
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(await response.text()).toBe("console.log('app')")
  })

  it("answers deep links with the app (the client routes them), but a missing asset with 404", async () => {
    const deep = await get("/app/chat/some-thread")
    expect(deep.status).toBe(200)
    expect(await deep.text()).toContain("/app/assets/index-abc.js")
    expect((await get("/app/assets/index-gone.js")).status).toBe(404)
  })

  it("never serves a file outside its folder", async () => {
    const response = await get("/app/..%2f..%2fpackage.json")
    expect(await response.text()).not.toContain('"name"')
  })

  it("sends /app to /app/", async () => {
    const response = await get("/app")
    expect(response.status).toBe(301)
    expect(response.headers.get("location")).toBe("/app/")
  })

  it("sends a browser asking / for HTML to the console; API clients still get the status JSON", async () => {
    const browser = await get("/", { accept: "text/html,application/xhtml+xml,*/*;q=0.8" })
    expect(browser.status).toBe(302)
    expect(browser.headers.get("location")).toBe("/app/")
    const api = await get("/", { accept: "application/json" })
    expect(api.status).toBe(200)
    expect(await api.json()).toMatchObject({ name: "aide", auth: { setup: false } })
    expect((await get("/")).status).toBe(200)
  })
})

describe("the web console when it is not built", () => {
  it("answers 503 with how to build it", async () => {
    const empty = mkdtempSync(join(tmpdir(), "aide-console-none-"))
    const server = await startServer({ consoleDir: empty })
    try {
      const response = await fetch(`${server.url}/app/`)
      expect(response.status).toBe(503)
      expect(await response.text()).toMatch(/pnpm build/)
    } finally {
      await server.close()
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

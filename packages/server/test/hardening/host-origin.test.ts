import { Effect, Layer, Logger } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as HostCheck from "../../src/http/HostCheck.js"
import { password, type StartOptions, startServer, storageKinds, type TestServer } from "../support/server.js"
import { raw } from "./support/raw.js"

/**
 * Issue 9, item 3: DNS rebinding and cross-origin browser requests. A page on a foreign name
 * that rebinds to the server's address sends its own name as `Host`; a foreign page calling
 * the server sends its `Origin`. Neither may reach an endpoint (here: take over a fresh install).
 */
describe.each(storageKinds)("Host and Origin checks (%s)", (storage) => {
  const servers: Array<TestServer> = []
  const start = async (options: StartOptions = {}) => {
    const server = await startServer({ storage, ...options })
    servers.push(server)
    return server
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  const port = (server: TestServer) => new URL(server.url).port
  const setupWith = (server: TestServer, headers: Record<string, string>) =>
    raw(`${server.url}/api/auth/setup`, { body: JSON.stringify({ password }), headers })
  const status = (server: TestServer, headers: Record<string, string> = {}) =>
    raw(`${server.url}/`, { headers }).then((response) => response.json)

  it("a rebinding page (Host: attacker.example, its own Origin) cannot set up a fresh install: 421", async () => {
    const server = await start()
    const response = await setupWith(server, {
      host: `attacker.example:${port(server)}`,
      origin: `http://attacker.example:${port(server)}`,
    })
    expect(response.status).toBe(421)
    expect(response.json).toEqual({ error: 'host "attacker.example" is not allowed: add it to AIDE_ALLOWED_HOSTS' })
    expect((await status(server)).auth.setup).toBe(false)
    expect((await setupWith(server, {})).status).toBe(201)
  })

  it("refuses an unknown Host on every route, reads included", async () => {
    const server = await start()
    for (const path of ["/", "/api/openapi.json", "/api/threads", "/api/nope"]) {
      const response = await raw(`${server.url}${path}`, { headers: { host: "attacker.example" } })
      expect(response.status, path).toBe(421)
    }
  })

  it.each([
    "127.0.0.1",
    "127.0.0.1:4111",
    "localhost",
    "LOCALHOST:80",
    "app.localhost:3000",
    "[::1]:4111",
    "192.168.1.20:4111",
    "[2001:db8::1]",
  ])("serves the loopback names and any IP literal by default (Host: %s)", async (host) => {
    const server = await start()
    expect((await raw(`${server.url}/`, { headers: { host } })).status).toBe(200)
  })

  it("serves the names of AIDE_ALLOWED_HOSTS and of AIDE_PUBLIC_URL, and no others", async () => {
    const server = await start({ allowedHosts: ["aide.lan", "box.example"], publicUrl: "https://aide.example.com" })
    for (const host of ["aide.lan", "Box.Example:4111", "aide.example.com"]) {
      expect((await raw(`${server.url}/`, { headers: { host } })).status, host).toBe(200)
    }
    expect((await raw(`${server.url}/`, { headers: { host: "evil.example" } })).status).toBe(421)
  })

  it("AIDE_ALLOWED_HOSTS=* serves any Host", async () => {
    const server = await start({ allowedHosts: ["*"] })
    expect((await raw(`${server.url}/`, { headers: { host: "anything.example" } })).status).toBe(200)
  })

  it("a foreign Origin is refused with 403 even with a good Host, and nothing is set up", async () => {
    const server = await start()
    const response = await setupWith(server, { origin: "https://attacker.example" })
    expect(response.status).toBe(403)
    expect(response.json).toEqual({
      error: 'cross-origin request from "https://attacker.example" refused: allow it with AIDE_CORS_ORIGINS',
    })
    expect((await raw(`${server.url}/`, { headers: { origin: "null" } })).status).toBe(403)
    expect((await status(server)).auth.setup).toBe(false)
  })

  it("the server's own origin (a page it serves, such as /api/docs) may call", async () => {
    const server = await start()
    const response = await setupWith(server, { origin: server.url })
    expect(response.status).toBe(201)
    const localhost = await raw(`${server.url}/`, {
      headers: { host: `localhost:${port(server)}`, origin: `http://localhost:${port(server)}` },
    })
    expect(localhost.status).toBe(200)
  })

  it("the origin of AIDE_PUBLIC_URL may call (a proxy that rewrites Host)", async () => {
    const server = await start({ publicUrl: "https://aide.example.com" })
    expect((await raw(`${server.url}/`, { headers: { origin: "https://aide.example.com" } })).status).toBe(200)
  })

  it("an origin of AIDE_CORS_ORIGINS may call, others still may not", async () => {
    const server = await start({ corsOrigins: ["https://console.example"] })
    const allowed = await raw(`${server.url}/`, { headers: { origin: "https://console.example" } })
    expect(allowed.status).toBe(200)
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://console.example")
    expect((await raw(`${server.url}/`, { headers: { origin: "https://other.example" } })).status).toBe(403)
  })

  it("a cross-site request without Origin (Sec-Fetch-Site) is refused; a top-level navigation is not", async () => {
    const server = await start()
    const subresource = await raw(`${server.url}/`, {
      headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" },
    })
    expect(subresource.status).toBe(403)
    const navigation = await raw(`${server.url}/`, {
      headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" },
    })
    expect(navigation.status).toBe(200)
    const sameOrigin = await raw(`${server.url}/`, { headers: { "sec-fetch-site": "same-origin" } })
    expect(sameOrigin.status).toBe(200)
  })
})

describe("CORS exposes every header a browser client reads (issue 9, item 23)", () => {
  let server: TestServer | undefined
  afterEach(() => server?.close())

  it("Access-Control-Expose-Headers lists X-Run-Id, X-Thread-Id, X-Request-Id and the rate-limit headers", async () => {
    server = await startServer({ corsOrigins: ["https://console.example"] })
    const response = await raw(`${server.url}/`, { headers: { origin: "https://console.example" } })
    const exposed = String(response.headers["access-control-expose-headers"])
      .toLowerCase()
      .split(/\s*,\s*/)
    for (const header of [
      "x-run-id",
      "x-thread-id",
      "x-request-id",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "retry-after",
    ]) {
      expect(exposed).toContain(header)
    }
  })
})

describe("listening on every interface", () => {
  const warnings = async (options: Partial<HostCheck.HostCheckOptions>) => {
    const messages: Array<string> = []
    const logger = Logger.make(({ message }) => messages.push(String(message)))
    const layer = HostCheck.startupWarning({ allowedHosts: [], host: "0.0.0.0", corsOrigins: [], ...options })
    await Effect.runPromise(
      Effect.scoped(Layer.build(layer)).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))),
    )
    return messages
  }

  it("warns at start that host names need AIDE_ALLOWED_HOSTS when none is configured", async () => {
    expect(await warnings({})).toEqual([expect.stringContaining("AIDE_ALLOWED_HOSTS")])
    expect(await warnings({ host: "::" })).toHaveLength(1)
  })

  it("stays quiet on loopback or with host names configured", async () => {
    expect(await warnings({ host: "127.0.0.1" })).toEqual([])
    expect(await warnings({ allowedHosts: ["aide.lan"] })).toEqual([])
    expect(await warnings({ publicUrl: "https://aide.example.com" })).toEqual([])
  })
})

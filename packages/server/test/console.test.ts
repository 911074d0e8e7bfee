import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import { get as httpGet } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib"
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
  // What the build's precompression step writes beside a large file.
  writeFileSync(join(dir, "assets", "big-def.js"), bigScript)
  writeFileSync(join(dir, "assets", "big-def.js.br"), brotliCompressSync(bigScript))
  writeFileSync(join(dir, "assets", "big-def.js.gz"), gzipSync(bigScript))
  writeFileSync(join(dir, "favicon.svg"), "<svg/>")
  return dir
}

const bigScript = `export const words = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `word ${i}`))}`

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

  it("sends precompressed assets as Accept-Encoding allows: brotli first, then gzip, else as they are", async () => {
    const raw = (path: string, acceptEncoding?: string) =>
      // undici's fetch would decode (and ask for) both: ask over a plain request instead.
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const url = new URL(`${server.url}${path}`)
        const req = httpGet(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
          },
          (response) => {
            const chunks: Array<Buffer> = []
            response.on("data", (chunk: Buffer) => chunks.push(chunk))
            response.on("end", () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
            )
          },
        )
        req.on("error", reject)
      })
    const br = await raw("/app/assets/big-def.js", "gzip, deflate, br")
    expect(br.headers["content-encoding"]).toBe("br")
    expect(br.headers.vary).toMatch(/accept-encoding/i)
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    expect(br.headers["content-type"]).toMatch(/^text\/javascript/)
    expect(brotliDecompressSync(br.body).toString()).toBe(bigScript)
    const gzip = await raw("/app/assets/big-def.js", "gzip")
    expect(gzip.headers["content-encoding"]).toBe("gzip")
    expect(gunzipSync(gzip.body).toString()).toBe(bigScript)
    // Refused by weight: brotli;q=0 gets gzip; a higher weight wins over the brotli preference.
    expect((await raw("/app/assets/big-def.js", "br;q=0, gzip")).headers["content-encoding"]).toBe("gzip")
    expect((await raw("/app/assets/big-def.js", "br;q=0.5, gzip;q=1")).headers["content-encoding"]).toBe("gzip")
    const identity = await raw("/app/assets/big-def.js")
    expect(identity.headers["content-encoding"]).toBeUndefined()
    expect(identity.headers.vary).toMatch(/accept-encoding/i)
    expect(identity.body.toString()).toBe(bigScript)
    expect((await raw("/app/assets/big-def.js", "identity")).headers["content-encoding"]).toBeUndefined()
    // A file without precompressed copies is sent as it is, without Vary.
    const small = await raw("/app/assets/index-abc.js", "br, gzip")
    expect(small.headers["content-encoding"]).toBeUndefined()
    expect(small.body.toString()).toBe("console.log('app')")
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

describe("the web console while `aide start` builds it", () => {
  it("answers a page that says so and refreshes, then the console once it is there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-console-building-"))
    process.env.AIDE_CONSOLE_BUILDING = "1"
    const server = await startServer({ consoleDir: dir })
    try {
      const page = await fetch(`${server.url}/app/`)
      expect(page.status).toBe(503)
      expect(page.headers.get("cache-control")).toBe("no-store")
      const html = await page.text()
      expect(html).toContain("Building the web console")
      expect(html).toContain('http-equiv="refresh"')
      // The API answers meanwhile.
      expect((await fetch(`${server.url}/`, { headers: { accept: "application/json" } })).status).toBe(200)
      // The build lands: served at once, without a restart.
      const built = fakeBuild()
      for (const file of ["index.html", "favicon.svg"]) writeFileSync(join(dir, file), readFileSync(join(built, file)))
      mkdirSync(join(dir, "assets"))
      writeFileSync(join(dir, "assets", "index-abc.js"), "console.log('app')")
      delete process.env.AIDE_CONSOLE_BUILDING
      const ready = await fetch(`${server.url}/app/`)
      expect(ready.status).toBe(200)
      expect(await ready.text()).toContain("/app/assets/index-abc.js")
      // A later build (a new index.html) replaces what was read.
      unlinkSync(join(dir, "index.html"))
      writeFileSync(
        join(dir, "index.html"),
        '<!doctype html><script type="module" src="/app/assets/index-new.js"></script>',
      )
      expect(await (await fetch(`${server.url}/app/chat/x`)).text()).toContain("index-new.js")
      rmSync(built, { recursive: true, force: true })
    } finally {
      delete process.env.AIDE_CONSOLE_BUILDING
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
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

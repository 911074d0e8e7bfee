import { execFile } from "node:child_process"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import type { ToolContext, ToolDefinition } from "@aide/plugin"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import tools, { MAX_TEXT } from "../src/tools.js"

const PAGE = `<!doctype html><html><head><title>Tom &amp; Jerry &#8211; Wiki</title>
<style>body { color: red }</style><script>alert("no")</script></head>
<body><nav>Menu</nav><h1>Tom &amp; Jerry</h1><p>A cat &lt;Tom&gt; and a mouse.</p>
<!-- a comment --><ul><li>One</li><li>Two&nbsp;items</li></ul></body></html>`

const routes: Record<string, (response: Http.ServerResponse) => void> = {
  "/wiki/Tom": (response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE),
  "/big": (response) =>
    response.writeHead(200, { "content-type": "text/html" }).end(`<p>${"word ".repeat(10_000)}</p>`),
  "/plain": (response) => response.writeHead(200, { "content-type": "text/plain" }).end("  just text  "),
  "/image": (response) => response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([137, 80])),
}

let server: Http.Server
let origin: string
const requested: Array<string> = []

beforeAll(async () => {
  server = Http.createServer((request, response) => {
    requested.push(request.url ?? "")
    const route = routes[new URL(request.url ?? "/", "http://x").pathname]
    if (route === undefined) response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
    else route(response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const [fetchPage] = tools as unknown as Array<ToolDefinition<{ url: string }, any>>

/** A stand-in for Aide's brokered fetch: every https URL is served by the loopback server. */
const context = (fetch: typeof globalThis.fetch | null = brokered): ToolContext => ({
  env: {},
  config: {},
  signal: new AbortController().signal,
  log: () => undefined,
  ...(fetch === null ? {} : { fetch }),
})
const brokered: typeof fetch = (input, init) => {
  const url = new URL(String(input))
  expect(url.protocol).toBe("https:")
  return fetch(`${origin}${url.pathname}${url.search}`, init)
}

describe("fetch_page", () => {
  it("returns the title and the text of a page, HTML stripped and entities decoded", async () => {
    const result = await fetchPage!.execute({ url: "https://en.wikipedia.org/wiki/Tom" }, context())
    expect(result).toMatchObject({ status: 200, title: "Tom & Jerry – Wiki", truncated: false })
    expect(result.text).toBe("Menu\n\nTom & Jerry\n\nA cat <Tom> and a mouse.\n\n• One\n\n• Two items")
    expect(result.text).not.toMatch(/alert|color: red|comment/)
  })

  it("caps the text at 20,000 characters and says so", async () => {
    const result = await fetchPage!.execute({ url: "https://example.com/big" }, context())
    expect(result.text.length).toBe(MAX_TEXT)
    expect(result.truncated).toBe(true)
  })

  it("returns text pages as they are", async () => {
    const result = await fetchPage!.execute({ url: "https://example.com/plain" }, context())
    expect(result).toMatchObject({ title: "", text: "just text" })
  })

  it("asks the broker for https even when given an http URL", async () => {
    const result = await fetchPage!.execute({ url: "http://example.com/plain" }, context())
    expect(result.status).toBe(200)
  })

  it.each([
    ["file:///etc/passwd", /only http\(s\) pages/],
    ["javascript:alert(1)", /only http\(s\) pages/],
    ["not a url", /absolute URL/],
  ])("refuses %s", async (url, error) => {
    await expect(fetchPage!.execute({ url }, context())).rejects.toThrow(error)
  })

  it("fails clearly on a non-2xx answer and on a page that is not text", async () => {
    await expect(fetchPage!.execute({ url: "https://example.com/missing" }, context())).rejects.toThrow(
      "fetch_page: https://example.com/missing answered 404 Not Found",
    )
    await expect(fetchPage!.execute({ url: "https://example.com/image" }, context())).rejects.toThrow(
      /not a text page \(image\/png\)/,
    )
  })

  it("passes the broker's refusal on", async () => {
    const refusing: typeof fetch = async () => {
      throw new Error("host not declared: evil.example")
    }
    await expect(fetchPage!.execute({ url: "https://evil.example/" }, context(refusing))).rejects.toThrow(
      /could not fetch https:\/\/evil\.example\/: host not declared/,
    )
  })

  it("says so when no network was granted", async () => {
    await expect(fetchPage!.execute({ url: "https://example.com/" }, context(null))).rejects.toThrow(
      /no network access/,
    )
  })
})

describe("in a SES compartment", () => {
  const runner = fileURLToPath(new URL("./compartment-runner.mjs", import.meta.url))
  const run = async (url: string) => {
    const { stdout } = await promisify(execFile)(process.execPath, [runner, origin, url], { timeout: 15_000 })
    return JSON.parse(stdout.trim().split("\n").at(-1)!)
  }

  it("runs with only the granted endowments (no process, require, Buffer or clock)", async () => {
    const outcome = await run("https://en.wikipedia.org/wiki/Tom")
    expect(outcome.probe).toEqual({ process: "undefined", require: "undefined", Buffer: "undefined", clock: "none" })
    expect(outcome).toMatchObject({ ok: true, result: { status: 200, title: "Tom & Jerry – Wiki" } })
  })

  it("reports errors from inside the compartment", async () => {
    const outcome = await run("https://example.com/missing")
    expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining("answered 404") })
  })
})

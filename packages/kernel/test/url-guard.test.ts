import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as UrlGuard from "../src/mcp/UrlGuard.js"

let rebinds = 0

/** Names under `.public.test` resolve to a public address, `intranet.test` to a private one. */
const lookup: UrlGuard.Lookup = async (hostname) => {
  if (hostname.endsWith(".public.test")) return ["93.184.216.34"]
  if (hostname === "intranet.test") return ["10.1.2.3"]
  if (hostname === "mixed.test") return ["93.184.216.34", "192.168.1.10"]
  // Not in the system's DNS: only a connection to the checked address can reach it.
  if (hostname === "rebind.test") return rebinds++ === 0 ? ["127.0.0.1"] : ["10.1.2.3"]
  throw new Error(`ENOTFOUND ${hostname}`)
}

/** Serves `.public.test` names from the loopback fixture below (they are not in DNS). */
const viaLoopback: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : input)
  if (url.hostname.endsWith(".public.test")) url.hostname = "127.0.0.1"
  return fetch(url, init)
}

let server: Http.Server
let base: string
const hits: Array<{ path: string; authorization: string | undefined; method: string | undefined }> = []

beforeAll(async () => {
  server = Http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost")
    hits.push({ path: url.pathname, authorization: request.headers.authorization, method: request.method })
    const to = url.searchParams.get("to")
    if (to !== null) {
      response.writeHead(Number(url.searchParams.get("status") ?? 302), { location: to })
      return response.end()
    }
    response.writeHead(200, { "content-type": "text/plain" })
    response.end("ok")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const publicBase = () => base.replace("127.0.0.1", "mcp.public.test")

describe("addressKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.32.0.1", "public"],
    ["192.168.0.1", "private"],
    ["100.64.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fd00::1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::7f00:1", "loopback"],
    ["::ffff:0:7f00:1", "loopback"],
    ["2002:a9fe:a9fe::", "link-local"],
    ["64:ff9b:1::a00:1", "private"],
    ["192.0.2.1", "reserved"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["0.0.0.0", "reserved"],
    ["::", "reserved"],
    ["224.0.0.1", "reserved"],
    ["8.8.8.8", "public"],
    ["2001:4860:4860::8888", "public"],
  ] as const)("%s is %s", (address, kind) => {
    expect(UrlGuard.addressKind(address)).toBe(kind)
  })

  it("localhost names are loopback without asking DNS", async () => {
    expect([...(await UrlGuard.hostKinds(new URL("http://localhost:1/"), lookup))]).toEqual(["loopback"])
    expect([...(await UrlGuard.hostKinds(new URL("http://api.localhost/"), lookup))]).toEqual(["loopback"])
    expect([...(await UrlGuard.hostKinds(new URL("http://localhost./"), lookup))]).toEqual(["loopback"])
    expect([...(await UrlGuard.hostKinds(new URL("http://[::1]:8080/"), lookup))]).toEqual(["loopback"])
  })
})

describe("guardedFetch for a public MCP server", () => {
  const guarded = () => UrlGuard.guardedFetch("https://mcp.public.test/mcp", { lookup, fetch: viaLoopback })

  it("refuses loopback, private and link-local targets, by address or by name", async () => {
    const fetchFn = guarded()
    await expect(fetchFn(`${base}/metadata`)).rejects.toThrow(/^Refused http:\/\/127\.0\.0\.1:\d+\/metadata: loopback/)
    await expect(fetchFn("http://intranet.test/token")).rejects.toThrow(/private address/)
    await expect(fetchFn("http://mixed.test/token")).rejects.toThrow(/private address/)
    await expect(fetchFn("http://169.254.169.254/latest/meta-data")).rejects.toThrow(/link-local address/)
    await expect(fetchFn("http://[::ffff:127.0.0.1]/")).rejects.toThrow(/loopback address/)
    await expect(fetchFn("file:///etc/passwd")).rejects.toThrow(/only http and https/)
    expect(hits.filter((hit) => hit.path === "/metadata")).toEqual([])
  })

  it("allows public targets", async () => {
    const response = await guarded()(`${publicBase()}/public`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("ok")
  })

  it("checks every redirect hop and never reaches a private one", async () => {
    const secret = `${base}/secret`
    const start = `${publicBase()}/start?to=${encodeURIComponent(secret)}`
    await expect(guarded()(start)).rejects.toThrow(/^Refused http:\/\/127\.0\.0\.1:\d+\/secret: loopback/)
    expect(hits.filter((hit) => hit.path === "/secret")).toEqual([])
  })

  it("follows public redirects, turning a POST into a GET on 303 and dropping credentials across origins", async () => {
    const target = `http://other.public.test:${new URL(base).port}/landed`
    const response = await guarded()(`${publicBase()}/post?status=303&to=${encodeURIComponent(target)}`, {
      method: "POST",
      body: "x=1",
      headers: { authorization: "Bearer upstream", "content-type": "application/x-www-form-urlencoded" },
    })
    expect(response.status).toBe(200)
    const landed = hits.filter((hit) => hit.path === "/landed").at(-1)
    expect(landed).toEqual({ path: "/landed", authorization: undefined, method: "GET" })
  })

  it("returns redirects unfollowed to callers asking for redirect: manual (the MCP SDK)", async () => {
    const response = await guarded()(`${publicBase()}/manual?to=${encodeURIComponent(`${base}/secret`)}`, {
      redirect: "manual",
    })
    expect(response.status).toBe(302)
    expect(hits.filter((hit) => hit.path === "/secret")).toEqual([])
  })

  it("gives up after five redirects", async () => {
    let url = `${publicBase()}/end`
    for (let i = 0; i < 6; i++) url = `${publicBase()}/hop${i}?to=${encodeURIComponent(url)}`
    await expect(guarded()(url)).rejects.toThrow(/more than 5 redirects/)
  })
})

describe("guardedFetch for an MCP server on loopback", () => {
  it("allows loopback targets and redirects, but not other private networks", async () => {
    const fetchFn = UrlGuard.guardedFetch(`${base}/mcp`, { lookup })
    const response = await fetchFn(`${base}/start?to=${encodeURIComponent(`${base}/loopback-ok`)}`)
    expect(response.status).toBe(200)
    expect(hits.some((hit) => hit.path === "/loopback-ok")).toBe(true)
    await expect(fetchFn("http://intranet.test/")).rejects.toThrow(/private address/)
    await expect(fetchFn("http://169.254.169.254/")).rejects.toThrow(/link-local address/)
  })

  it("a server on a private network may use that network", async () => {
    const fetchFn = UrlGuard.guardedFetch("http://intranet.test/mcp", { lookup })
    // Refused only by the network, not by the guard: nothing listens on 10.1.2.3 here.
    await expect(fetchFn(`${base}/x`)).rejects.toThrow(/loopback address/)
    const guardOnly = UrlGuard.guardedFetch("http://intranet.test/mcp", {
      lookup,
      fetch: async () => new Response("reached"),
    })
    expect(await (await guardOnly("http://10.9.9.9/token")).text()).toBe("reached")
  })
})

describe("guardedFetch and DNS rebinding", () => {
  it("connects to the address it checked, not to the name's next answer", async () => {
    rebinds = 0
    const fetchFn = UrlGuard.guardedFetch(`${base}/mcp`, { lookup })
    const response = await fetchFn(`http://rebind.test:${new URL(base).port}/rebound`)
    expect(response.status).toBe(200)
    expect(rebinds).toBe(1)
    expect(hits.some((hit) => hit.path === "/rebound")).toBe(true)
  })
})

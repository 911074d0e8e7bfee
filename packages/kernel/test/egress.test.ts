import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Egress from "../src/net/Egress.js"
import type { Lookup } from "../src/net/Hosts.js"
import { type EgressServers, startEgressServers } from "./support/egress-servers.js"

/**
 * Names under `example.com` stand for public hosts and resolve to the loopback fixtures, so the
 * brokers that reach them allow loopback; every other non-public kind stays refused.
 */
let lookups: Array<string> = []
let rebindAnswers = 0
const lookup: Lookup = async (host) => {
  lookups.push(host)
  if (host === "example.com" || host.endsWith(".example.com") || host === "evil-example.com") return ["127.0.0.1"]
  if (host === "intranet.test") return ["10.1.2.3"]
  if (host === "mixed.test") return ["93.184.216.34", "10.1.2.3"]
  if (host === "imds.test") return ["169.254.169.254"]
  // DNS rebinding: a first answer that passes the check, then another address.
  if (host === "rebind.test") return rebindAnswers++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"]
  throw new Error(`ENOTFOUND ${host}`)
}

let servers: EgressServers
beforeAll(async () => {
  servers = await startEgressServers()
})
afterAll(() => servers.close())
beforeEach(() => {
  lookups = []
  servers.hits.length = 0
})

const at = (host: string, path: string) => `http://${host}:${servers.port}${path}`
const local = (options: Egress.EgressOptions = {}) =>
  Egress.make({ allowHttp: true, allowedKinds: ["loopback"], lookup, ...options })

describe("the escape corpus: non-public targets are refused before any connection", () => {
  const strict = () => Egress.make({ allowHttp: true, lookup })
  it.each([
    ["http://[::1]/", /loopback address is not allowed/],
    ["http://[::ffff:169.254.169.254]/", /metadata endpoint, never allowed/],
    ["http://[::ffff:7f00:1]/", /loopback address is not allowed/],
    ["http://[::127.0.0.1]/", /loopback address is not allowed/],
    ["http://[64:ff9b::a9fe:a9fe]/", /metadata endpoint/],
    ["http://localhost./", /loopback address \(localhost\) is not allowed/],
    ["http://api.localhost/", /loopback address \(api\.localhost\) is not allowed/],
    ["http://100.100.100.200/latest/meta-data", /metadata endpoint/],
    ["http://169.254.169.254/latest/meta-data", /link-local address is a metadata endpoint/],
    ["http://[fd00:ec2::254]/", /metadata endpoint/],
    ["http://0.0.0.0/", /reserved address is not allowed/],
    ["http://2130706433/", /loopback address/],
    ["http://10.0.0.1/", /private address is not allowed/],
    ["http://100.64.0.1/", /private address is not allowed/],
    ["http://[fd00::1]/", /private address is not allowed/],
    ["http://[fe80::1]/", /link-local address is not allowed/],
    ["http://intranet.test/", /private address \(intranet\.test resolves to 10\.1\.2\.3\)/],
    ["http://mixed.test/", /private address \(mixed\.test resolves to 10\.1\.2\.3\)/],
    ["http://imds.test/", /metadata endpoint/],
    ["file:///etc/passwd", /only http and https/],
  ])("%s", async (url, reason) => {
    await expect(strict()(url)).rejects.toThrow(reason)
  })

  it("refuses metadata endpoints even where their network kind is allowed", async () => {
    const fetch = Egress.make({ allowHttp: true, allowedKinds: ["link-local", "private"], lookup })
    await expect(fetch("http://169.254.169.254/")).rejects.toThrow(/metadata endpoint/)
    await expect(fetch("http://100.100.100.200/")).rejects.toThrow(/metadata endpoint/)
  })

  it("errors are tagged and never quote URL credentials or query values", async () => {
    const error = await strict()("http://user:pass-word@10.0.0.1/?token=s3cr3t").catch((e) => e)
    expect(error._tag).toBe("EgressRefused")
    expect(error.message).not.toMatch(/pass-word|s3cr3t/)
    const private_ = await strict()("http://10.0.0.1/?token=s3cr3t").catch((e) => e)
    expect(private_.message).toBe("Refused http://10.0.0.1/?token=***: private address is not allowed")
  })
})

describe("declared hosts", () => {
  const declared = (allowedHosts: ReadonlyArray<string>) => local({ allowedHosts })

  it("*.example.com matches a.example.com, not example.com nor evil-example.com", async () => {
    const fetch = declared(["*.example.com"])
    expect(await (await fetch(at("a.example.com", "/ok"))).text()).toBe("127.0.0.1 /ok")
    await expect(fetch(at("example.com", "/"))).rejects.toThrow(/host example\.com is not declared/)
    await expect(fetch(at("evil-example.com", "/"))).rejects.toThrow(/host evil-example\.com is not declared/)
  })

  it("exact names match exactly, a trailing dot is the same name", async () => {
    const fetch = declared(["api.example.com"])
    expect((await fetch(at("api.example.com.", "/ok"))).status).toBe(200)
    await expect(fetch(at("a.api.example.com", "/"))).rejects.toThrow(/not declared/)
  })

  it("an undeclared host is refused without resolving it", async () => {
    await expect(declared(["api.example.com"])(at("other.example.com", "/"))).rejects.toThrow(/not declared/)
    expect(lookups).toEqual([])
  })

  it("http is refused unless allowed", async () => {
    const fetch = Egress.make({ allowedHosts: ["api.example.com"], allowedKinds: ["loopback"], lookup })
    await expect(fetch(at("api.example.com", "/ok"))).rejects.toThrow(/only https is allowed/)
    expect(servers.hits).toEqual([])
  })
})

describe("DNS is resolved once and the checked address is the one connected to", () => {
  it("a name answering another address on its next lookup (rebinding) still reaches the first", async () => {
    rebindAnswers = 0
    const response = await local()(at("rebind.test", "/pinned"))
    expect(await response.text()).toBe("127.0.0.1 /pinned")
    expect(lookups).toEqual(["rebind.test"])
    expect(servers.hits).toEqual(["127.0.0.1 /pinned"])
    // The counterfactual: the name's next answer would have been the other server.
    expect(await lookup("rebind.test")).toEqual(["127.0.0.2"])
  })
})

describe("network failures", () => {
  it("reject as fetch does, a TypeError with the system error as cause", async () => {
    await expect(local()("http://nowhere.test/")).rejects.toMatchObject({ message: "fetch failed" })
    const closed = await local()(`http://a.example.com:1/`).catch((e) => e)
    expect(closed).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } })
  })
})

describe("redirects", () => {
  it("each hop is checked: public → public → private is refused at the private hop", async () => {
    const third = "http://intranet.test/secret"
    const second = at("b.example.com", `/hop2?to=${encodeURIComponent(third)}`)
    const first = at("a.example.com", `/hop1?to=${encodeURIComponent(second)}`)
    await expect(local()(first)).rejects.toThrow(/^Refused http:\/\/intranet\.test\/secret: private address/)
    expect(servers.hits).toEqual(["127.0.0.1 /hop1", "127.0.0.1 /hop2"])
  })

  const chain = (hops: number) => {
    let url = at("a.example.com", "/end")
    for (let i = hops; i > 0; i--) url = at("a.example.com", `/hop${i}?to=${encodeURIComponent(url)}`)
    return url
  }

  it("five redirects are followed, a sixth is refused", async () => {
    expect(await (await local()(chain(5))).text()).toBe("127.0.0.1 /end")
    await expect(local()(chain(6))).rejects.toThrow(/more than 5 redirects/)
  })

  it("redirect: manual returns the redirect unfollowed", async () => {
    const response = await local()(chain(1), { redirect: "manual" })
    expect(response.status).toBe(302)
    expect(servers.hits).toEqual(["127.0.0.1 /hop1"])
  })
})

describe("limits", () => {
  it("a response that does not come in time fails with a timeout", async () => {
    await expect(local({ timeoutMs: 200 })(at("a.example.com", "/slow"))).rejects.toThrow(/^Timed out after 200 ms/)
  })

  it("the timeout covers the body too", async () => {
    const response = await local({ timeoutMs: 200 })(at("a.example.com", "/drip"))
    await expect(response.text()).rejects.toThrow(/Timed out after 200 ms/)
  })

  it("a 100 MB body is cut at the cap without being received whole", async () => {
    servers.sent.bytes = 0
    const response = await local({ maxBodyBytes: 1024 * 1024 })(at("a.example.com", "/big"))
    await expect(response.arrayBuffer()).rejects.toThrow(/exceeds 1048576 bytes/)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(servers.sent.bytes).toBeLessThan(16 * 1024 * 1024)
  })

  it("a declared Content-Length over the cap is refused before reading", async () => {
    await expect(local({ maxBodyBytes: 1024 })(at("a.example.com", "/declared"))).rejects.toThrow(/exceeds 1024 bytes/)
  })

  it("no more requests are in flight at once than the concurrency", async () => {
    const fetch = local({ concurrency: 2 })
    const all = Promise.all([1, 2, 3, 4].map(async () => (await fetch(at("a.example.com", "/hold"))).text()))
    await expect.poll(() => servers.held.count).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(servers.held.count).toBe(2)
    servers.releaseHeld()
    await expect.poll(() => servers.held.count).toBe(2)
    servers.releaseHeld()
    expect(await all).toEqual(["released", "released", "released", "released"])
    expect(servers.held.max).toBe(2)
  })

  it("a request aborted while waiting for a permit leaves the queue without taking one", async () => {
    const fetch = local({ concurrency: 1 })
    const first = fetch(at("a.example.com", "/hold"))
    await expect.poll(() => servers.held.count).toBe(1)
    await expect(fetch(at("a.example.com", "/ok"), { signal: AbortSignal.timeout(50) })).rejects.toThrow(
      /timeout|abort/i,
    )
    servers.releaseHeld()
    expect(await (await first).text()).toBe("released")
    expect(await (await fetch(at("a.example.com", "/ok"))).text()).toBe("127.0.0.1 /ok")
    expect(servers.hits.filter((hit) => hit.endsWith("/ok"))).toEqual(["127.0.0.1 /ok"])
  })
})

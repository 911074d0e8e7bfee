import { ServerConfig } from "@aide/server"
import { ConfigProvider, Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { parseTrustProxy, rateLimitBucket } from "../../src/http/ClientAddress.js"
import {
  password,
  request,
  type StartOptions,
  setup,
  startServer,
  storageKinds,
  type TestServer,
} from "../support/server.js"

/**
 * Issue 9, items 4 and 5: behind a trusted proxy the client address is the entry a trusted hop
 * count from the right of `X-Forwarded-For`, validated as an IP; rate limits bucket IPv6 per /64
 * and IPv4-mapped IPv6 as IPv4.
 */

describe("AIDE_TRUST_PROXY", () => {
  it("true means one hop, a number that many, unset/false/0 none", () => {
    expect(parseTrustProxy("true")).toEqual({ _tag: "Hops", hops: 1 })
    expect(parseTrustProxy(" 2 ")).toEqual({ _tag: "Hops", hops: 2 })
    for (const off of [undefined, "", "false", "0"]) expect(parseTrustProxy(off)).toEqual({ _tag: "None" })
  })

  it("anything else stops the start with a message instead of trusting every hop", async () => {
    const read = (value: string) =>
      Effect.runPromise(
        Effect.either(
          Effect.withConfigProvider(
            ServerConfig.fromEnv,
            ConfigProvider.fromMap(new Map([["AIDE_TRUST_PROXY", value]])),
          ),
        ),
      )
    const refused = await read("yes")
    expect(refused._tag).toBe("Left")
    expect(String(refused._tag === "Left" ? refused.left : "")).toContain("AIDE_TRUST_PROXY")
    const accepted = await read("true")
    expect(accepted._tag === "Right" ? accepted.right.trustProxy : undefined).toEqual({ _tag: "Hops", hops: 1 })
  })
})

describe("rate-limit buckets", () => {
  it("bucket IPv6 by /64, whatever the spelling", () => {
    expect(rateLimitBucket("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe(rateLimitBucket("2001:db8:1:2::9"))
    expect(rateLimitBucket("2001:DB8:1:2::1")).toBe(rateLimitBucket("2001:db8:1:2:0:0:0:2"))
    expect(rateLimitBucket("2001:db8:1:3::1")).not.toBe(rateLimitBucket("2001:db8:1:2::1"))
  })

  it("count IPv4-mapped IPv6 as the IPv4 address, IPv4 per address", () => {
    expect(rateLimitBucket("::ffff:203.0.113.7")).toBe("203.0.113.7")
    expect(rateLimitBucket("::ffff:cb00:7107")).toBe("203.0.113.7")
    expect(rateLimitBucket("203.0.113.8")).toBe("203.0.113.8")
  })
})

describe.each(storageKinds)("client address behind a trusted proxy (%s)", (storage) => {
  const servers: Array<TestServer> = []
  const start = async (options: StartOptions) => {
    const server = await startServer({ storage, ...options })
    servers.push(server)
    return server
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  const login = (server: TestServer, forwardedFor: string, pw = "a wrong password") =>
    request(`${server.url}/api/auth/login`, { body: { password: pw }, headers: { "x-forwarded-for": forwardedFor } })

  it("AIDE_TRUST_PROXY=true: 12 wrong logins with a rotating leftmost X-Forwarded-For hit 429", async () => {
    const server = await start({ trustProxy: parseTrustProxy("true") })
    await setup(server)
    const statuses: Array<number> = []
    for (let attempt = 1; attempt <= 12; attempt++) {
      statuses.push((await login(server, `198.51.100.${attempt}, 203.0.113.9`)).status)
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)])
  })

  it.each(["<script>alert(1)</script>", "unknown", "203.0.113.9<b>", "1.2.3.4.5", ""])(
    "a forwarded entry that is not an IP (%j) is never stored as a session ip: the socket address is",
    async (entry) => {
      const server = await start({ trustProxy: parseTrustProxy("1") })
      const { token } = await setup(server)
      const login = await request(`${server.url}/api/auth/login`, {
        body: { password },
        headers: { "x-forwarded-for": `203.0.113.5, ${entry}` },
      })
      expect(login.status).toBe(200)
      const sessions = (await request(`${server.url}/api/auth/sessions`, { token })).body.sessions
      expect(sessions.map((session: { ip: string }) => session.ip)).toEqual(["127.0.0.1", "127.0.0.1"])
    },
  )

  it("stores the forwarded client address, with its port stripped, when it is one", async () => {
    const server = await start({ trustProxy: parseTrustProxy("2") })
    const { token } = await setup(server)
    for (const forwarded of ["spoofed, 203.0.113.5:5555, 10.0.0.2", "[2001:db8::5]:443, 10.0.0.2"]) {
      await request(`${server.url}/api/auth/login`, { body: { password }, headers: { "x-forwarded-for": forwarded } })
    }
    const sessions = (await request(`${server.url}/api/auth/sessions`, { token })).body.sessions
    expect(sessions.map((session: { ip: string }) => session.ip).sort()).toEqual(
      ["127.0.0.1", "2001:db8::5", "203.0.113.5"].sort(),
    )
  })

  it("fewer X-Forwarded-For entries than trusted hops: the header is ignored", async () => {
    const server = await start({ trustProxy: parseTrustProxy("2") })
    await setup(server)
    const statuses: Array<number> = []
    for (let attempt = 1; attempt <= 6; attempt++) statuses.push((await login(server, `198.51.100.${attempt}`)).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })

  it("one IPv6 host rotating addresses within its /64 shares one budget; another /64 has its own", async () => {
    const server = await start({ trustProxy: parseTrustProxy("1") })
    await setup(server)
    const statuses: Array<number> = []
    for (let attempt = 1; attempt <= 7; attempt++) {
      statuses.push((await login(server, `2001:db8:1:2::${attempt.toString(16)}`)).status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429])
    expect((await login(server, "2001:db8:1:3::1")).status).toBe(401)
  })

  it("an IPv4-mapped IPv6 address and its IPv4 address share one budget", async () => {
    const server = await start({ trustProxy: parseTrustProxy("1") })
    await setup(server)
    const statuses: Array<number> = []
    for (let attempt = 1; attempt <= 6; attempt++) {
      statuses.push((await login(server, attempt % 2 === 0 ? "::ffff:203.0.113.7" : "203.0.113.7")).status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })
})

import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultFetchLimits, limitFetches, refusalDelayMs } from "../../src/plugins/sandbox/FetchLimiter.js"
import { call, cleanup, eventually, pidOf, type Started, start, toolsModule, writePlugin } from "./plugin-support.js"

/**
 * Issue 32, item 4: a plugin with the `network` grant flooding its brokered fetch. Before, 20,000
 * refused fetches in a loop cost the server ~3.5 s of CPU and each was parsed, checked and
 * refused in full. Now each plugin gets 8 fetches in flight and 10 a second (bursts of 20),
 * refused calls included, counted before the broker looks at the request.
 */

const refused = "https://10.0.0.1/x"
const rateLimited = "fetch refused: rate limited (10 fetches a second, bursts of 20); try again later"
const tooMany = "fetch refused: more than 8 fetches in flight"

const prelude = `
const tally = async (urls, context) => {
  const settled = await Promise.allSettled(urls.map((url) => context.fetch(url)))
  const out = {}
  for (const one of settled) {
    const key = one.status === "fulfilled" ? "ok " + one.value.status : one.reason.message.replace(/Refused \\S+: /, "")
    out[key] = (out[key] ?? 0) + 1
  }
  return out
}
const add = (into, from) => { for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n; return into }
`

const tools = toolsModule(
  {
    // A burst: every fetch at once, alternating a refused address and the allowed server.
    burst: `return tally(Array.from({ length: input.n }, (_, i) => (i % 2 === 0 ? ${JSON.stringify(refused)} : input.allowed)), context)`,
    // Waves of `size` at once, one after another: a plugin that keeps fetching.
    waves: `const out = {}; for (let i = 0; i < input.waves; i++) add(out, await tally(Array.from({ length: input.size }, () => input.url), context)); return out`,
    one: `try { return (await context.fetch(input.url)).status } catch (error) { return "refused: " + error.message }`,
  },
  prelude,
)

describe("a plugin flooding its brokered fetch", () => {
  let server: Server
  let allowed: string
  let active = 0
  let peak = 0
  let served = 0
  let flood: Started
  let neighbour: Started

  beforeAll(async () => {
    server = createServer((_, response) => {
      active += 1
      served += 1
      peak = Math.max(peak, active)
      setTimeout(() => {
        active -= 1
        response.end("ok")
      }, 150)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    allowed = `http://allowed.test:${(server.address() as AddressInfo).port}/`
    const options = {
      permissions: { network: ["allowed.test"] },
      limits: { callTimeoutMs: 60_000 },
      // allowed.test is this test's server on loopback; 10.0.0.1 is not declared, so refused.
      egress: { allowHttp: true, allowedKinds: ["loopback" as const], lookup: async () => ["127.0.0.1"] },
    }
    const directory = writePlugin({ "tools.mjs": tools })
    ;[flood, neighbour] = await Promise.all([
      start({ ...options, pluginId: "flood", directory }),
      start({ ...options, pluginId: "neighbour", directory }),
    ])
  }, 60_000)
  afterAll(async () => {
    await cleanup()
    await new Promise((resolve) => server?.close(resolve))
  })

  it("a burst of 5,000: at most 8 reach the network at once, at most the burst and the rate reach the broker, the rest are refused; the plugin lives and fetches again; another plugin is not affected", async () => {
    const pid = await pidOf(flood.plugin)
    peak = 0
    served = 0
    const started = Date.now()
    const counts = (await call(flood.plugin, "burst", { n: 5_000, allowed })) as Record<string, number>
    const seconds = (Date.now() - started) / 1_000
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(5_000)
    // What the broker let through: the allowed ones reached the server, the others its guard.
    const through = (counts["ok 200"] ?? 0) + (counts["host 10.0.0.1 is not declared"] ?? 0)
    expect(through).toBeGreaterThan(0)
    expect(through).toBeLessThanOrEqual(defaultFetchLimits.burst + Math.ceil(defaultFetchLimits.perSecond * seconds))
    expect(served).toBe(counts["ok 200"] ?? 0)
    expect(peak).toBeLessThanOrEqual(defaultFetchLimits.inFlight)
    // The rest were refused by a bound, without being looked at.
    expect(
      (counts[tooMany] ?? 0) +
        (counts[rateLimited] ?? 0) +
        (counts["fetch refused: more than 64 requests in flight"] ?? 0),
    ).toBe(5_000 - through)
    expect(counts[tooMany]).toBeGreaterThan(0)

    // Another plugin's bucket is its own: full right after the flood.
    expect(await call(neighbour.plugin, "one", { url: allowed })).toBe(200)
    // The flooding plugin is still the same process, and fetches again once tokens are back.
    await eventually(async () => (await call(flood.plugin, "one", { url: allowed })) === 200, 5_000)
    expect(await pidOf(flood.plugin)).toBe(pid)
  }, 60_000)

  it("waves of 8 to the allowed server: all 8 in flight at once, never more; then the rate holds them, refused calls included", async () => {
    // A quiet second: the bucket is full again.
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    peak = 0
    const started = Date.now()
    const counts = (await call(flood.plugin, "waves", { waves: 2, size: 8, url: allowed })) as Record<string, number>
    expect(counts).toEqual({ "ok 200": 16 })
    expect(peak).toBe(defaultFetchLimits.inFlight)

    // A plugin that keeps fetching, most of it to an address the guard refuses anyway.
    const floodStarted = Date.now()
    const flooded = (await call(flood.plugin, "waves", { waves: 20, size: 8, url: refused })) as Record<string, number>
    const seconds = (Date.now() - started) / 1_000
    const guarded = flooded["host 10.0.0.1 is not declared"] ?? 0
    expect(guarded + (flooded[rateLimited] ?? 0)).toBe(160)
    // The burst, then 10 a second, the 16 above included.
    expect(16 + guarded).toBeLessThanOrEqual(
      defaultFetchLimits.burst + Math.ceil(defaultFetchLimits.perSecond * seconds),
    )
    expect(flooded[rateLimited]).toBeGreaterThan(80)
    // Held refusals are answered in batches: the plugin's waves are slowed to that pace.
    expect(Date.now() - floodStarted).toBeGreaterThanOrEqual(10 * refusalDelayMs)
  }, 60_000)
})

describe("FetchLimiter", () => {
  it("refuses past the in-flight bound and the token bucket, and refills with time", async () => {
    let now = 0
    const release: Array<() => void> = []
    const limited = limitFetches(
      { inFlight: 2, perSecond: 10, burst: 3 },
      () => new Promise((resolve) => release.push(() => resolve("done"))),
      () => now,
    )
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (value) => value,
        (error: Error) => error.message,
      )
    const signal = new AbortController().signal
    const first = outcome(limited.handle({}, signal))
    const second = outcome(limited.handle({}, signal))
    const third = outcome(limited.handle({}, signal))
    await Promise.resolve()
    limited.close()
    expect(await third).toBe("fetch refused: more than 2 fetches in flight")
    for (const done of release.splice(0)) done()
    expect([await first, await second]).toEqual(["done", "done"])
    // One token left of the burst of 3, then none until time passes.
    const fourth = outcome(limited.handle({}, signal))
    const fifth = outcome(limited.handle({}, signal))
    limited.close()
    expect(await fifth).toMatch(/rate limited \(10 fetches a second, bursts of 3\)/)
    await Promise.resolve()
    for (const done of release.splice(0)) done()
    expect(await fourth).toBe("done")
    now += 100
    const sixth = outcome(limited.handle({}, signal))
    await Promise.resolve()
    for (const done of release.splice(0)) done()
    expect(await sixth).toBe("done")
  })
})

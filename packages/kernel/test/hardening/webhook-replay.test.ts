import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import * as ReplayCache from "../../src/channels/gateway/ReplayCache.js"
import { check } from "../../src/channels/gateway/WebhookVerifier.js"

/** Issue 20, finding 8: timestamped HMAC signatures and a bounded replay cache. */
const stamped = {
  kind: "hmac-sha256",
  header: "x-sig",
  secret: { config: "secret" },
  prefix: "sha256=",
  timestamp: { header: "X-Time", toleranceSeconds: 60 },
} as const
const sign = (text: string) => `sha256=${createHmac("sha256", "k").update(text).digest("hex")}`
const now = 1_764_000_000

describe("timestamped webhook signatures", () => {
  it("covers `<timestamp>.<body>` and takes a timestamp within the tolerance", () => {
    const body = '{"a":1}'
    const at = String(now - 59)
    const verdict = check(stamped, "k", { "x-sig": sign(`${at}.${body}`), "x-time": at }, body, now)
    expect(verdict).toEqual({ ok: true, replay: { key: expect.stringMatching(/^[0-9a-f]{64}$/), until: now + 1 } })
  })

  it("refuses a missing or malformed timestamp, a stale one, and a body-only signature", () => {
    const body = "b"
    expect(check(stamped, "k", { "x-sig": sign(body) }, body, now)).toEqual({ ok: false, reason: "timestamp_required" })
    expect(check(stamped, "k", { "x-sig": sign(`1e9.${body}`), "x-time": "1e9" }, body, now)).toEqual({
      ok: false,
      reason: "timestamp_required",
    })
    const old = String(now - 61)
    expect(check(stamped, "k", { "x-sig": sign(`${old}.${body}`), "x-time": old }, body, now)).toEqual({
      ok: false,
      reason: "stale_timestamp",
    })
    const future = String(now + 61)
    expect(check(stamped, "k", { "x-sig": sign(`${future}.${body}`), "x-time": future }, body, now).ok).toBe(false)
    expect(check(stamped, "k", { "x-sig": sign(body), "x-time": String(now) }, body, now)).toEqual({
      ok: false,
      reason: "unauthorized",
    })
  })

  it("a body-only HMAC (no timestamp declared) is remembered for the default window", () => {
    const plain = { kind: "hmac-sha256", header: "x-sig", secret: { config: "secret" }, prefix: "sha256=" } as const
    const verdict = check(plain, "k", { "x-sig": sign("b") }, "b", now)
    expect(verdict).toMatchObject({ ok: true, replay: { until: now + 300 } })
  })

  it("a token (Telegram) is unchanged: no timestamp, nothing to remember", () => {
    const token = { kind: "token", header: "x-token", secret: { env: "T" } } as const
    expect(check(token, "s3cret", { "x-token": "s3cret" }, "", now)).toEqual({ ok: true })
  })
})

describe("ReplayCache", () => {
  it("refuses a key seen within its window, takes it again once the window ended", () => {
    const cache = ReplayCache.make()
    expect(cache.seen("a", now + 10, now)).toBe(false)
    expect(cache.seen("a", now + 10, now + 5)).toBe(true)
    expect(cache.seen("a", now + 30, now + 11)).toBe(false)
  })

  it("stays within its bound: expired entries go first, then the oldest", () => {
    const cache = ReplayCache.make(3)
    cache.seen("old", now - 1, now - 100)
    cache.seen("b", now + 100, now)
    cache.seen("c", now + 100, now)
    expect(cache.seen("d", now + 100, now)).toBe(false)
    expect(cache.size()).toBe(3)
    expect(cache.seen("b", now + 100, now)).toBe(true)
    for (let index = 0; index < 10_000; index++) cache.seen(`k${index}`, now + 100, now)
    expect(cache.size()).toBe(3)
  })

  it("forgets a key whose request was not handled, so the sender may retry", () => {
    const cache = ReplayCache.make()
    cache.seen("a", now + 10, now)
    cache.forget("a")
    expect(cache.seen("a", now + 10, now)).toBe(false)
  })
})

import { createHmac } from "node:crypto"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { WebhookVerification } from "../src/channels/gateway/ChannelContract.js"
import { check, verify } from "../src/channels/gateway/WebhookVerifier.js"

const token = { kind: "token", header: "X-Token", secret: { env: "T" } } as const
const hmac = (encoding?: "hex" | "base64", prefix?: string) =>
  ({
    kind: "hmac-sha256",
    header: "x-sig",
    secret: { config: "secret" },
    ...(encoding === undefined ? {} : { encoding }),
    ...(prefix === undefined ? {} : { prefix }),
  }) as const
const sign = (secret: string, body: string, encoding: "hex" | "base64") =>
  createHmac("sha256", secret).update(body).digest(encoding)

describe("webhook verification", () => {
  it("token: the header must equal the secret; the header name is matched lower-case", () => {
    expect(verify(token, "s3cret", { "x-token": "s3cret" }, "")).toBe(true)
    expect(verify(token, "s3cret", { "x-token": "s3cret " }, "")).toBe(false)
    expect(verify(token, "s3cret", { "x-token": "s3cre" }, "")).toBe(false)
    expect(verify(token, "s3cret", {}, "")).toBe(false)
  })

  it("no secret (unset or empty) verifies nothing, not even an empty header", () => {
    expect(verify(token, undefined, { "x-token": "" }, "")).toBe(false)
    expect(verify(token, "", { "x-token": "" }, "")).toBe(false)
    expect(verify(hmac(), "", { "x-sig": sign("", "b", "hex") }, "b")).toBe(false)
  })

  it("hmac-sha256: hex in either case, base64 standard or URL-safe, the prefix required when declared", () => {
    const body = '{"a":1}'
    expect(verify(hmac(), "k", { "x-sig": sign("k", body, "hex") }, body)).toBe(true)
    expect(verify(hmac(), "k", { "x-sig": sign("k", body, "hex").toUpperCase() }, body)).toBe(true)
    expect(verify(hmac(), "k", { "x-sig": sign("k", `${body} `, "hex") }, body)).toBe(false)
    const b64 = sign("k", body, "base64")
    expect(verify(hmac("base64"), "k", { "x-sig": b64 }, body)).toBe(true)
    const urlSafe = b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
    expect(verify(hmac("base64"), "k", { "x-sig": urlSafe }, body)).toBe(true)
    expect(verify(hmac("hex", "sha256="), "k", { "x-sig": `sha256=${sign("k", body, "hex")}` }, body)).toBe(true)
    expect(verify(hmac("hex", "sha256="), "k", { "x-sig": sign("k", body, "hex") }, body)).toBe(false)
  })

  it("a signature of the wrong length or format fails without comparing", () => {
    expect(verify(hmac(), "k", { "x-sig": "abcd" }, "b")).toBe(false)
    expect(verify(hmac(), "k", { "x-sig": "z".repeat(64) }, "b")).toBe(false)
    expect(verify(hmac("base64"), "k", { "x-sig": "AAAA" }, "b")).toBe(false)
  })
})

describe("timestamped signatures", () => {
  const slack = {
    kind: "hmac-sha256",
    header: "x-slack-signature",
    prefix: "v0=",
    secret: { config: "signingSecret" },
    timestamp: { header: "x-slack-request-timestamp", baseString: "v0:{timestamp}:{body}" },
  } as const
  const now = 1_700_000_000

  it("a declared baseString is what is signed (Slack's v0:<timestamp>:<body>), not <timestamp>.<body>", () => {
    const body = '{"type":"event_callback","text":"{timestamp} {body}"}'
    const headers = (signed: string) => ({
      "x-slack-request-timestamp": String(now),
      "x-slack-signature": `v0=${sign("k", signed, "hex")}`,
    })
    expect(check(slack, "k", headers(`v0:${now}:${body}`), body, now)).toMatchObject({ ok: true })
    expect(check(slack, "k", headers(`${now}.${body}`), body, now)).toEqual({ ok: false, reason: "unauthorized" })
    expect(check(slack, "k", headers(`v0:${now}:${body}`), body, now + 301)).toEqual({
      ok: false,
      reason: "stale_timestamp",
    })
  })

  it("without a baseString the signed string stays <timestamp>.<body>", () => {
    const plain = { ...slack, timestamp: { header: "x-slack-request-timestamp" } }
    const headers = {
      "x-slack-request-timestamp": String(now),
      "x-slack-signature": `v0=${sign("k", `${now}.b`, "hex")}`,
    }
    expect(check(plain, "k", headers, "b", now)).toMatchObject({ ok: true })
  })

  it("the contract takes only templates with {timestamp} then {body} at the end", () => {
    const decodes = (baseString: string) =>
      Either.isRight(
        Schema.decodeUnknownEither(WebhookVerification)({ ...slack, timestamp: { header: "t", baseString } }),
      )
    expect(decodes("v0:{timestamp}:{body}")).toBe(true)
    expect(decodes("{timestamp}.{body}")).toBe(true)
    expect(decodes("{body}:{timestamp}")).toBe(false)
    expect(decodes("v0:{body}")).toBe(false)
    expect(decodes("{timestamp}{timestamp}{body}")).toBe(false)
  })
})

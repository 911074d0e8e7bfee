import { createHmac } from "node:crypto"
import { Channel, ChannelContract, ChannelGateway } from "@aide/kernel"
import { ChannelEndpoint } from "@aide/kernel/internal"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "./support/server.js"

/** What the in-test channels' handlers received. */
const received: Array<{ readonly key: string; readonly request: ChannelContract.WebhookRequest }> = []

const endpoint = (
  pluginId: string,
  channelId: string,
  verification: ChannelContract.WebhookVerification,
  secret: string | undefined,
  answer: Effect.Effect<ChannelContract.WebhookResponse | null, Channel.ChannelDeliveryError> = Effect.succeed(null),
): ChannelEndpoint.ChannelEndpoint => ({
  pluginId,
  channelId,
  name: `${pluginId} ${channelId}`,
  webhook: {
    verification,
    secret: Effect.succeed(secret),
    handle: (request) =>
      Effect.zipRight(
        Effect.sync(() => received.push({ key: `${pluginId}:${channelId}`, request })),
        answer,
      ),
  },
  realtime: null,
  send: null,
  notify: null,
})

const tokenHeader = "x-telegram-bot-api-secret-token"
/** WhatsApp's: signed POSTs, and the GET subscription handshake with a verify token. */
const metaVerification: ChannelContract.WebhookVerification = {
  kind: "hmac-sha256",
  header: "x-hub-signature-256",
  prefix: "sha256=",
  secret: { config: "appSecret" },
  subscribe: { verifyToken: { config: "verifyToken" } },
}
const withVerifyToken = (base: ChannelEndpoint.ChannelEndpoint, token: string): ChannelEndpoint.ChannelEndpoint => ({
  ...base,
  webhook: { ...base.webhook!, verifyToken: Effect.succeed(token) },
})
const endpoints = Layer.mergeAll(
  ChannelGateway.endpoint(
    endpoint("tg", "bot", { kind: "token", header: tokenHeader, secret: { env: "T" } }, "s3cret"),
  ),
  ChannelGateway.endpoint(
    endpoint(
      "gh",
      "hooks",
      { kind: "hmac-sha256", header: "X-Hub-Signature-256", prefix: "sha256=", secret: { config: "secret" } },
      "hush",
      Effect.succeed({ status: 202, headers: { "x-handled": "yes" }, body: "accepted" }),
    ),
  ),
  ChannelGateway.endpoint(
    endpoint(
      "gh",
      "b64",
      { kind: "hmac-sha256", header: "x-signature", encoding: "base64", secret: { env: "S" } },
      "hush",
    ),
  ),
  ChannelGateway.endpoint(withVerifyToken(endpoint("wa", "cloud", metaVerification, "app-secret"), "meta-verify")),
  ChannelGateway.endpoint(
    endpoint("nosecret", "bot", { kind: "token", header: tokenHeader, secret: { env: "U" } }, undefined),
  ),
  ChannelGateway.endpoint(
    endpoint(
      "broken",
      "bot",
      { kind: "token", header: tokenHeader, secret: { env: "T" } },
      "s3cret",
      Effect.fail(new Channel.ChannelDeliveryError({ channel: "broken:bot", message: "plugin crashed" })),
    ),
  ),
)

const hmac = (secret: string, body: string, encoding: "hex" | "base64") =>
  createHmac("sha256", secret).update(body).digest(encoding)

const post = async (server: TestServer, path: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

describe("POST /wh/:pluginId/:channelId", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ kernel: { channelEndpoints: endpoints } })
  })
  afterAll(() => server.close())

  it("an unknown endpoint is 404", async () => {
    const answer = await post(server, "/wh/nobody/bot", "{}", { [tokenHeader]: "s3cret" })
    expect(answer.status).toBe(404)
  })

  it("a wrong token is 401 and never reaches the channel", async () => {
    const before = received.length
    const answer = await post(server, "/wh/tg/bot", "{}", { [tokenHeader]: "s3cret-not" })
    expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({
      status: 401,
      body: { error: "unauthorized" },
    })
    expect(received.length).toBe(before)
  })

  it("a missing header is 401", async () => {
    expect((await post(server, "/wh/tg/bot", "{}")).status).toBe(401)
  })

  it("a channel whose secret is not set answers every request 401", async () => {
    expect((await post(server, "/wh/nosecret/bot", "{}", { [tokenHeader]: "" })).status).toBe(401)
    expect((await post(server, "/wh/nosecret/bot", "{}", { [tokenHeader]: "anything" })).status).toBe(401)
  })

  it("the right token: 200 { ok: true }, the handler gets the raw body and lower-case headers", async () => {
    const body = "update_id=1&message=hello%20there"
    const answer = await post(server, "/wh/tg/bot", body, {
      [tokenHeader]: "s3cret",
      "content-type": "application/x-www-form-urlencoded",
    })
    expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({ status: 200, body: { ok: true } })
    const last = received.at(-1)!
    expect(last.key).toBe("tg:bot")
    expect(last.request.method).toBe("POST")
    expect(last.request.body).toBe(body)
    expect(last.request.headers["content-type"]).toBe("application/x-www-form-urlencoded")
  })

  it("hmac-sha256 hex with a prefix: a bad signature is 401, the right one passes the handler's answer through", async () => {
    const body = JSON.stringify({ action: "opened" })
    const bad = await post(server, "/wh/gh/hooks", body, {
      "x-hub-signature-256": `sha256=${hmac("nope", body, "hex")}`,
    })
    expect(bad.status).toBe(401)
    const unprefixed = await post(server, "/wh/gh/hooks", body, { "x-hub-signature-256": hmac("hush", body, "hex") })
    expect(unprefixed.status).toBe(401)
    const good = await post(server, "/wh/gh/hooks", body, {
      "x-hub-signature-256": `sha256=${hmac("hush", body, "hex").toUpperCase()}`,
      "content-type": "application/json",
    })
    expect({ status: good.status, handled: good.headers.get("x-handled"), text: good.text }).toEqual({
      status: 202,
      handled: "yes",
      text: "accepted",
    })
    expect(received.at(-1)?.request.body).toBe(body)
  })

  it("hmac-sha256 base64: the signature of another body is 401, its own passes", async () => {
    const body = "payload"
    expect((await post(server, "/wh/gh/b64", body, { "x-signature": hmac("hush", "other", "base64") })).status).toBe(
      401,
    )
    expect((await post(server, "/wh/gh/b64", body, { "x-signature": hmac("hush", body, "base64") })).status).toBe(200)
  })

  it("GET: Meta's subscription handshake is answered with the challenge only for the right verify token", async () => {
    const before = received.length
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`)
      return { status: response.status, text: await response.text(), type: response.headers.get("content-type") }
    }
    const query = (token: string, mode = "subscribe", challenge = "1158201444") =>
      `?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=${challenge}`
    const good = await get(`/wh/wa/cloud${query("meta-verify")}`)
    expect(good).toMatchObject({ status: 200, text: "1158201444" })
    expect(good.type).toContain("text/plain")
    expect((await get(`/wh/wa/cloud${query("meta-verify-not")}`)).status).toBe(403)
    expect((await get(`/wh/wa/cloud${query("meta-verify", "unsubscribe")}`)).status).toBe(403)
    expect((await get(`/wh/wa/cloud${query("meta-verify", "subscribe", "<script>")}`)).status).toBe(403)
    expect((await get("/wh/wa/cloud")).status).toBe(403)
    // Channels that declare no handshake, and unknown ones, have no GET.
    expect((await get(`/wh/gh/hooks${query("meta-verify")}`)).status).toBe(404)
    expect((await get(`/wh/nobody/bot${query("meta-verify")}`)).status).toBe(404)
    expect(received.length).toBe(before)
    // POSTs to it are still verified by their signature.
    const body = '{"object":"whatsapp_business_account"}'
    expect(
      (await post(server, "/wh/wa/cloud", body, { "x-hub-signature-256": `sha256=${hmac("x", body, "hex")}` })).status,
    ).toBe(401)
    const signed = await post(server, "/wh/wa/cloud", body, {
      "x-hub-signature-256": `sha256=${hmac("app-secret", body, "hex")}`,
    })
    expect(signed.status).toBe(200)
  })

  it("a body over 1 MiB is 413", async () => {
    const answer = await post(server, "/wh/tg/bot", "x".repeat(1024 * 1024 + 1), { [tokenHeader]: "s3cret" })
    expect(answer.status).toBe(413)
  })

  it("a handler that fails is 502", async () => {
    const answer = await post(server, "/wh/broken/bot", "{}", { [tokenHeader]: "s3cret" })
    expect(answer.status).toBe(502)
    expect(JSON.parse(answer.text)).toHaveProperty("error")
  })
})

describe("POST /wh/:pluginId/:channelId: rate limit", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ kernel: { channelEndpoints: endpoints } })
  })
  afterAll(() => server.close())

  it("the 61st request of a client within a minute is 429 with Retry-After, whatever the endpoint", async () => {
    for (let n = 1; n <= 60; n++) {
      const answer = await post(server, n % 2 === 0 ? "/wh/tg/bot" : "/wh/nobody/bot", "{}", {
        [tokenHeader]: "s3cret",
      })
      expect(answer.status).not.toBe(429)
    }
    const limited = await post(server, "/wh/tg/bot", "{}", { [tokenHeader]: "s3cret" })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
  })
})

import { createHmac, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, enableWebhookChannel, eventually, startChatServer } from "../support/chat.js"
import { attributeOf, type ReceivedSpan, startCollector } from "../support/otlpCollector.js"
import { request } from "../support/server.js"

/**
 * Issue 32, items 1 and 9. With OTEL_EXPORTER_OTLP_ENDPOINT set, the platform's request span
 * exported `url.full`/`url.query` with their values and every header but `authorization`,
 * `cookie`, `set-cookie` and `x-api-key`, unauthenticated requests included: a collector got the
 * Telegram webhook secret, webhook signatures, proxy credentials, OAuth `code`/`state` and
 * `?access_token=`. It also adopted any caller's `traceparent` as the parent. Every header and
 * query value the server or its first-party plugins read as a secret is sent here, and the
 * collector's raw exports must hold none of them; a caller's trace is linked, never joined.
 */
const unique = (name: string) => `${name}-${randomBytes(8).toString("hex")}`
const secrets = {
  telegram: unique("telegram-secret-token"),
  aideSignature: unique("aide-signature"),
  hubSignature: unique("hub-signature"),
  proxyAuthorization: unique("proxy-authorization"),
  authToken: unique("x-auth-token"),
  bearer: unique("stranger-bearer"),
  cookie: unique("cookie"),
  apiKey: unique("x-api-key"),
  cronSecret: unique("cron-secret"),
  accessToken: unique("access-token"),
  oauthCode: unique("oauth-code"),
  oauthState: unique("oauth-state"),
  webhookBody: unique("webhook-body"),
}

/** Every secret-bearing header a caller could send (the first-party plugins' webhook proofs too). */
const secretHeaders = {
  "x-telegram-bot-api-secret-token": secrets.telegram,
  "x-aide-signature": `sha256=${secrets.aideSignature}`,
  "x-hub-signature-256": `sha256=${secrets.hubSignature}`,
  "proxy-authorization": `Basic ${secrets.proxyAuthorization}`,
  "x-auth-token": secrets.authToken,
  authorization: `Bearer ${secrets.bearer}`,
  cookie: `aide_session=${secrets.cookie}`,
  "x-api-key": secrets.apiKey,
}

const traceparent = (traceId: string) => `00-${traceId}-${randomBytes(8).toString("hex")}-01`
const callerTraces = { stranger: randomBytes(16).toString("hex"), owner: randomBytes(16).toString("hex") }

/** The requests every mode answers: stranger's secrets in headers and queries, traced callers. */
const sendCommon = async (server: ChatTestServer) => {
  const statuses = [
    (await request(`${server.url}/api/threads?access_token=${secrets.accessToken}`, { headers: secretHeaders })).status,
    (
      await request(
        `${server.url}/api/mcp-servers/oauth/callback?code=${secrets.oauthCode}&state=${secrets.oauthState}`,
        { headers: secretHeaders },
      )
    ).status,
    (
      await request(`${server.url}/api/schedule/run-due`, {
        method: "POST",
        headers: { authorization: `Bearer ${secrets.cronSecret}` },
      })
    ).status,
    (await request(`${server.url}/api/threads`, { headers: { traceparent: traceparent(callerTraces.stranger) } }))
      .status,
    (
      await request(`${server.url}/api/threads?page=0`, {
        token: server.token,
        headers: { traceparent: traceparent(callerTraces.owner) },
      })
    ).status,
  ]
  expect(statuses).toEqual([401, expect.any(Number), expect.any(Number), 401, 200])
  expect(Math.max(statuses[1]!, statuses[2]!)).toBeLessThan(500)
}

const expectNothingSecret = (raw: ReadonlyArray<string>, more: Record<string, string>) => {
  const exported = raw.join("\n")
  expect(exported.length).toBeGreaterThan(0)
  for (const [name, value] of Object.entries({ ...secrets, ...more })) {
    expect(exported.includes(value), `${name} reached the collector`).toBe(false)
  }
  expect(exported).not.toContain("url.full")
  expect(exported).not.toContain("url.query")
}

const headerNames = (spans: ReadonlyArray<ReceivedSpan>) =>
  new Set(
    spans.flatMap((span) =>
      span.attributes.map((attribute) => attribute.key).filter((key) => key.startsWith("http.request.header.")),
    ),
  )

const expectCallersLinkedNotJoined = (spans: ReadonlyArray<ReceivedSpan>) => {
  for (const callerTrace of Object.values(callerTraces)) {
    expect(spans.filter((span) => span.traceId === callerTrace)).toEqual([])
    const linked = spans.filter((span) => span.links?.some((link) => link.traceId === callerTrace))
    expect(linked.map((span) => span.name)).toEqual(["http.server GET"])
    expect(linked[0]!.parentSpanId ?? "").toBe("")
    expect(attributeOf(linked[0]!, "http.route")).toBe("/api/threads")
  }
}

/** A signed webhook, accepted (its body becomes a chat run), then Telegram's secret header on its route. */
const sendWebhooks = async (server: ChatTestServer, webhookSecret: string) => {
  server.model.script({ text: "Noted." })
  const body = JSON.stringify({ conversationId: "trace-1", text: secrets.webhookBody })
  const timestamp = String(Math.floor(Date.now() / 1000))
  const signature = createHmac("sha256", webhookSecret).update(`${timestamp}.${body}`).digest("hex")
  const accepted = await fetch(`${server.url}/wh/webhook/webhook?access_token=${secrets.accessToken}`, {
    method: "POST",
    headers: {
      ...secretHeaders,
      "content-type": "application/json",
      "x-aide-signature": `sha256=${signature}`,
      "x-aide-timestamp": timestamp,
    },
    body,
  })
  expect(accepted.status).toBe(202)
  // The Telegram channel is not configured here (404), but its header reaches the request span.
  const telegram = await fetch(`${server.url}/wh/telegram/telegram`, {
    method: "POST",
    headers: { ...secretHeaders, "content-type": "application/json" },
    body: JSON.stringify({ update_id: 1, message: { text: secrets.webhookBody } }),
  })
  expect(telegram.status).toBeLessThan(500)
  await eventually(() => (server.model.requests.length > 0 ? true : undefined), { timeoutMs: 10_000 })
  return signature
}

for (const mode of ["server", "serverless"] as const) {
  describe(`request spans carry no secrets (${mode})`, () => {
    let collector: Awaited<ReturnType<typeof startCollector>>
    const sent: Record<string, string> = {}
    const webhookSecret = "trace-webhook-secret"

    // One server: every request is sent, then closing it flushes the exporter's last batch.
    beforeAll(async () => {
      collector = await startCollector()
      const server = await startChatServer({ mode, otlpEndpoint: collector.url })
      sent.ownerToken = server.token
      try {
        if (mode === "server") {
          await enableWebhookChannel(server, webhookSecret)
          sent.validSignature = await sendWebhooks(server, webhookSecret)
        }
        await sendCommon(server)
      } finally {
        await server.close()
      }
    })
    afterAll(() => collector.close())

    it("no secret header value, query value or webhook body reaches the collector", () => {
      expectNothingSecret(collector.raw, sent)
    })

    it("request headers outside the allowlist are not recorded, not even their names", () => {
      expect(headerNames(collector.spans)).toContain("http.request.header.host")
      for (const name of headerNames(collector.spans)) {
        expect(["accept", "content-length", "content-type", "host", "user-agent"]).toContain(
          name.slice("http.request.header.".length),
        )
      }
    })

    it("a caller's traceparent, owner's or stranger's, starts a new trace linked to the caller's", () => {
      expectCallersLinkedNotJoined(collector.spans)
    })

    it.runIf(mode === "server")("a webhook's span keeps method, route, path and status", () => {
      const webhook = collector.spans.find((span) => attributeOf(span, "http.route") === "/wh/:pluginId/:channelId")
      expect(webhook).toBeDefined()
      expect(attributeOf(webhook!, "http.request.method")).toBe("POST")
      expect(attributeOf(webhook!, "url.path")).toBe("/wh/webhook/webhook")
      expect(Number(attributeOf(webhook!, "http.response.status_code"))).toBe(202)
    })
  })
}

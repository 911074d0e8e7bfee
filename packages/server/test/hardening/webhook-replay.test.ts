import { createHmac } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, enableWebhookChannel, eventually, startChatServer } from "../support/chat.js"

/**
 * Issue 20, finding 8: the same signed body was accepted 3 times out of 3 (each a new chat run
 * and callback); the signature covered only the body. The signed-webhook plugin (a real plugin
 * process) now signs `<timestamp>.<body>`, and a request already accepted is refused.
 */
const secret = "replay-test-secret"
const sign = (text: string) => `sha256=${createHmac("sha256", secret).update(text).digest("hex")}`

describe("signed webhook replays", () => {
  let server: ChatTestServer
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${server.url}/wh/webhook/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    })

  beforeAll(async () => {
    server = await startChatServer()
    await enableWebhookChannel(server, secret)
  })
  afterAll(() => server?.close())

  it("a signed request sent three times is accepted once, then 409 replayed; one chat run", async () => {
    server.model.script({ text: "Once." })
    const body = JSON.stringify({ conversationId: "replay-1", text: "Do it once" })
    const timestamp = String(Math.floor(Date.now() / 1000))
    const headers = { "x-aide-signature": sign(`${timestamp}.${body}`), "x-aide-timestamp": timestamp }
    const statuses: Array<number> = []
    const answers: Array<unknown> = []
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await post(body, headers)
      statuses.push(response.status)
      answers.push(await response.json())
    }
    expect(statuses).toEqual([202, 409, 409])
    expect(answers.slice(1)).toEqual([{ error: "replayed" }, { error: "replayed" }])
    await eventually(() => (server.model.requests.length > 0 ? true : undefined), { timeoutMs: 10_000 })
    expect(server.model.requests).toHaveLength(1)
  })

  it("a signature without a timestamp (the old format) is refused: 401 timestamp_required", async () => {
    const body = JSON.stringify({ conversationId: "replay-2", text: "old sender" })
    const response = await post(body, { "x-aide-signature": sign(body) })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "timestamp_required" })
  })

  it("a body-only signature sent with a timestamp is 401 unauthorized: the timestamp is signed", async () => {
    const body = JSON.stringify({ conversationId: "replay-3", text: "hi" })
    const timestamp = String(Math.floor(Date.now() / 1000))
    const response = await post(body, { "x-aide-signature": sign(body), "x-aide-timestamp": timestamp })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "unauthorized" })
  })

  it("a correctly signed request 10 minutes old is 401 stale_timestamp", async () => {
    const body = JSON.stringify({ conversationId: "replay-4", text: "late" })
    const timestamp = String(Math.floor(Date.now() / 1000) - 600)
    const response = await post(body, {
      "x-aide-signature": sign(`${timestamp}.${body}`),
      "x-aide-timestamp": timestamp,
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "stale_timestamp" })
  })
})

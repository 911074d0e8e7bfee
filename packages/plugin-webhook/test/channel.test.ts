import { createHmac } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import webhook from "../src/channel.js"
import { postSigned } from "../src/signing.js"

const SECRET = "shh-its-a-secret"

interface Delivery {
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** A loopback receiver (the automation tool's side) that checks signatures as a user would. */
const startReceiver = async (status = 200, hang = false) => {
  const deliveries: Array<Delivery> = []
  const server = Http.createServer(async (request, response) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
    if (hang) return
    response.writeHead(status).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { url, deliveries, close }
}

const verified = (delivery: Delivery) => {
  const expected = `sha256=${createHmac("sha256", SECRET).update(delivery.body).digest("hex")}`
  return delivery.headers["x-aide-signature"] === expected
}

const makeContext = () => {
  const received: Array<InboundMessage> = []
  const answers: Array<unknown> = []
  const context: ChannelContext = {
    env: {},
    config: {},
    signal: new AbortController().signal,
    log: () => undefined,
    receive: async (message) => {
      received.push(message)
    },
    answerApproval: async (answer) => {
      answers.push(answer)
    },
    // This plugin calls its platform with the global fetch (a host channel).
    fetch: globalThis.fetch,
    webSocket: () => {
      throw new Error("no WebSocket in this test")
    },
    connect: () => Promise.reject(new Error("no socket in this test")),
  }
  return { context, received, answers }
}

const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
})

let receiver: Awaited<ReturnType<typeof startReceiver>>
beforeEach(async () => {
  receiver = await startReceiver()
})
afterEach(async () => {
  await receiver.close()
})

const channelWith = (config: Record<string, unknown>) => webhook({ config }) as ChannelDefinition

describe("inbound", () => {
  it("asks Aide to check an HMAC-SHA256 hex signature of `<timestamp>.<body>` with the sha256= prefix", () => {
    expect(channelWith({ secret: SECRET }).webhook!.verify).toEqual({
      kind: "hmac-sha256",
      header: "x-aide-signature",
      secret: { config: "secret" },
      encoding: "hex",
      prefix: "sha256=",
      timestamp: { header: "x-aide-timestamp", toleranceSeconds: 300 },
    })
  })

  it("hands a message with files to the assistant and answers 202", async () => {
    const { context, received } = makeContext()
    const file = { mediaType: "text/plain", url: "data:text/plain;base64,aGk=", filename: "hi.txt" }
    const response = await channelWith({ secret: SECRET }).webhook!.handle(
      post({ conversationId: "n8n-1", text: "summarise", files: [file] }),
      context,
    )
    expect(response?.status).toBe(202)
    expect(JSON.parse(response!.body!)).toEqual({ accepted: true, conversationId: "n8n-1" })
    expect(received).toEqual([{ conversationId: "n8n-1", text: "summarise", files: [file] }])
  })

  it("puts a message without a conversationId in the default conversation", async () => {
    const { context, received } = makeContext()
    await channelWith({ secret: SECRET }).webhook!.handle(post({ text: "hello" }), context)
    expect(received).toEqual([{ conversationId: "default", text: "hello" }])
  })

  it.each([
    ["{not json", "the body must be JSON"],
    ["[1]", "the body must be a JSON object"],
    [{ text: 3 }, "text must be a string"],
    [{ text: "  " }, "text (a non-empty string) or files is required"],
    [{ conversationId: "", text: "x" }, "conversationId must be"],
    [
      { text: "x", files: [{ mediaType: "image/png", url: "https://example.com/a.png" }] },
      "files[0].url must be a data URL",
    ],
    [{ approval: { approvalId: "a", approved: true } }, "an approval needs its conversationId"],
    [{ conversationId: "c", approval: { approvalId: "a", approved: "yes" } }, "approval.approved must be a boolean"],
  ])("answers 400 with a clear error to %j", async (body, error) => {
    const { context, received } = makeContext()
    const response = await channelWith({ secret: SECRET }).webhook!.handle(post(body), context)
    expect(response?.status).toBe(400)
    expect(JSON.parse(response!.body!).error).toContain(error)
    expect(received).toEqual([])
  })

  it("turns an approval body into answerApproval", async () => {
    const { context, answers } = makeContext()
    const body = { conversationId: "n8n-1", approval: { approvalId: "aitxt-9", approved: true } }
    const response = await channelWith({ secret: SECRET }).webhook!.handle(post(body), context)
    expect(response?.status).toBe(202)
    expect(answers).toEqual([{ conversationId: "n8n-1", approvalId: "aitxt-9", approved: true }])
  })
})

describe("outbound", () => {
  it("POSTs a reply with its approvals to callbackUrl, signed over the raw body", async () => {
    const { context } = makeContext()
    const approvals = [{ approvalId: "aitxt-1", toolName: "send_mail", input: { to: "a@b.c" } }]
    await channelWith({ secret: SECRET, callbackUrl: receiver.url }).send!(
      { conversationId: "n8n-1", text: "Shall I?", approvals },
      context,
    )
    const [delivery] = receiver.deliveries
    expect(verified(delivery!)).toBe(true)
    const body = JSON.parse(delivery!.body)
    expect(body).toMatchObject({ type: "reply", conversationId: "n8n-1", text: "Shall I?", approvals })
    expect(String(body.timestamp)).toBe(delivery!.headers["x-aide-timestamp"])
  })

  it("POSTs a notification, signed", async () => {
    const { context } = makeContext()
    await channelWith({ secret: SECRET, callbackUrl: receiver.url }).notify!(
      { subject: "Daily", body: "All good", threadId: "t-1" },
      context,
    )
    const [delivery] = receiver.deliveries
    expect(verified(delivery!)).toBe(true)
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: "notification",
      subject: "Daily",
      body: "All good",
      threadId: "t-1",
    })
  })

  it("fails a delivery the receiver refuses", async () => {
    const refusing = await startReceiver(500)
    try {
      const { context } = makeContext()
      const channel = channelWith({ secret: SECRET, callbackUrl: refusing.url })
      await expect(channel.notify!({ subject: "s", body: "b", threadId: null }, context)).rejects.toThrow(
        /answered 500/,
      )
    } finally {
      await refusing.close()
    }
  })

  it("gives up on a receiver that does not answer in time", async () => {
    const hanging = await startReceiver(200, true)
    try {
      await expect(postSigned(hanging.url, SECRET, { type: "ping" }, { timeoutMs: 200 })).rejects.toThrow(
        /did not answer/,
      )
    } finally {
      await hanging.close()
    }
  })

  it("only listens without a callbackUrl", () => {
    const channel = channelWith({ secret: SECRET })
    expect(channel.send).toBeUndefined()
    expect(channel.notify).toBeUndefined()
    expect(() => channelWith({ secret: SECRET, callbackUrl: "ftp://x" })).toThrow(/callbackUrl/)
    expect(() => channelWith({})).toThrow(/secret/)
  })
})

import { createHmac } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type FakeTelegram, startFakeTelegram } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, eventually, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

/** A receiver of the webhook channel's signed callbacks. */
const startReceiver = async () => {
  const received: Array<{ signature: string; body: string }> = []
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const parts: Array<Buffer> = []
    for await (const part of req) parts.push(part as Buffer)
    received.push({ signature: String(req.headers["x-aide-signature"]), body: Buffer.concat(parts).toString("utf8") })
    res.writeHead(204).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

/** The first-party channel plugins, shipped with the server, enabled live and driven end to end. */
describe("channel plugins through the server", () => {
  let server: ChatTestServer
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let telegram: FakeTelegram
  const pluginRoot = mkdtempSync(join(tmpdir(), "aide-channel-plugins-"))
  const plugin = async (id: string) => {
    const listed = await request(`${server.url}/api/plugins`, { token: server.token })
    return (listed.body.plugins as Array<any>).find((entry) => entry.id === id)
  }
  const patch = (body: unknown) => request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body })
  const loaded = (id: string) =>
    eventually(async () => ((await plugin(id)).provides.channels.loaded ? plugin(id) : undefined), {
      timeoutMs: 15_000,
    })

  beforeAll(async () => {
    // A sandboxed tool that needs the owner's approval (requireApproval defaults to true).
    mkdirSync(join(pluginRoot, "guarded"), { recursive: true })
    writeFileSync(
      join(pluginRoot, "guarded", "aide.plugin.json"),
      JSON.stringify({
        manifestVersion: 1,
        id: "guarded",
        name: "Guarded",
        provides: { tools: [{ entry: "tools.js" }] },
      }),
    )
    writeFileSync(
      join(pluginRoot, "guarded", "tools.js"),
      `export default { id: "launch", name: "Launch", description: "Launches", parameters: { type: "object" }, execute: () => ({ launched: true }) }`,
    )
    server = await startChatServer({ pluginsPath: [pluginRoot] })
    receiver = await startReceiver()
    telegram = await startFakeTelegram()
  })
  afterAll(async () => {
    await server?.close()
    await receiver?.close()
    await telegram?.close()
    rmSync(pluginRoot, { recursive: true, force: true })
  })

  it("lists the shipped channel plugins, not loaded until enabled", async () => {
    const webhook = await plugin("webhook")
    expect(webhook.enabled).toBe(false)
    expect(webhook.provides.channels).toEqual({ loaded: false, webhook: null, realtime: null, webhookPath: null })
    expect((await plugin("telegram")).provides.channels.loaded).toBe(false)
  })

  it("signed webhook: a verified message is answered through the signed callback; a forged one is 401", async () => {
    const secret = "webhook-test-secret"
    expect((await patch({ plugins: { webhook: { enabled: true, secret, callbackUrl: receiver.url } } })).status).toBe(
      200,
    )
    const view = await loaded("webhook")
    expect(view.provides.channels).toEqual({
      loaded: true,
      webhook: true,
      realtime: false,
      webhookPath: "/wh/webhook/webhook",
    })
    expect(view.config.secret).toBe("••••••")
    const destinations = await request(`${server.url}/api/schedule/destinations`, { token: server.token })
    expect(destinations.body.destinations).toContain("webhook:webhook")

    server.model.script({ text: "Hello from Aide." })
    const body = JSON.stringify({ conversationId: "c-1", text: "Hi there" })
    const timestamp = String(Math.floor(Date.now() / 1000))
    const post = (signature: string) =>
      fetch(`${server.url}/wh/webhook/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-aide-signature": signature, "x-aide-timestamp": timestamp },
        body,
      })
    expect((await post(sign("wrong", `${timestamp}.${body}`))).status).toBe(401)
    const accepted = await post(sign(secret, `${timestamp}.${body}`))
    expect(accepted.status).toBe(202)
    const reply = await eventually(() => receiver.received[0], { timeoutMs: 10_000 })
    expect(reply.signature).toBe(sign(secret, reply.body))
    expect(JSON.parse(reply.body)).toMatchObject({ type: "reply", conversationId: "c-1", text: "Hello from Aide." })
  })

  it("signed webhook as a destination: a scheduled task's result is delivered through it, and marked sent", async () => {
    server.model.script({ text: "Your digest is ready." })
    const runAt = new Date(Date.now() + 1_500).toISOString()
    const created = await request(`${server.url}/api/schedule`, {
      method: "POST",
      token: server.token,
      body: { name: "Digest", prompt: "Make the digest", runAt, destination: "webhook:webhook" },
    })
    expect(created.status).toBe(201)
    const delivered = await eventually(
      () => receiver.received.map((entry) => JSON.parse(entry.body)).find((body) => body.type === "notification"),
      { timeoutMs: 15_000 },
    )
    expect(delivered.body).toContain("Your digest is ready.")
    const inbox = await eventually(
      async () => {
        const listed = await request(`${server.url}/api/inbox`, { token: server.token })
        const message = (listed.body.messages as Array<any>).find((entry) => entry.destination === "webhook:webhook")
        return message?.status === "sent" ? message : undefined
      },
      { timeoutMs: 10_000 },
    )
    expect(inbox.status).toBe("sent")
  })

  it("Telegram: the owner's message is polled, answered in a thread, and sent back; a stranger is ignored", async () => {
    const ownerId = 4242
    expect(
      (
        await patch({
          plugins: {
            telegram: { enabled: true, botToken: telegram.token, ownerId: String(ownerId), apiRoot: telegram.apiRoot },
          },
        })
      ).status,
    ).toBe(200)
    const view = await loaded("telegram")
    expect(view.provides.channels).toMatchObject({ loaded: true, webhook: false, realtime: true, webhookPath: null })

    server.model.script({ text: "Hi owner." })
    const message = (from: number, text: string) => ({
      message: {
        message_id: Date.now(),
        date: 1,
        chat: { id: from, type: "private" },
        from: { id: from, is_bot: false, first_name: "T" },
        text,
      },
    })
    telegram.pushUpdate(message(999, "let me in"))
    telegram.pushUpdate(message(ownerId, "Hello bot"))
    const sent = await eventually(
      () => telegram.sent.find((entry) => entry.chat_id === ownerId || entry.chat_id === String(ownerId)),
      {
        timeoutMs: 15_000,
      },
    )
    expect(sent.text).toContain("Hi owner.")
    expect(telegram.sent.some((entry) => String(entry.chat_id) === "999")).toBe(false)
    const threads = await request(`${server.url}/api/threads`, { token: server.token })
    expect(JSON.stringify(threads.body)).toContain("Hello bot")
  })

  it("Telegram: a tool call waiting for approval becomes buttons; the owner's tap runs it and the answer follows", async () => {
    const ownerId = 4242
    expect((await patch({ plugins: { guarded: { enabled: true } } })).status).toBe(200)
    await eventually(async () => ((await plugin("guarded")).provides.tools.toolIds.length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    })
    server.model.script({ toolCalls: [{ name: "guarded_launch", arguments: {} }] }, { text: "Launched." })
    const before = telegram.sent.length
    telegram.pushUpdate({
      message: {
        message_id: 50,
        date: 1,
        chat: { id: ownerId, type: "private" },
        from: { id: ownerId, is_bot: false, first_name: "T" },
        text: "Launch it",
      },
    })
    const asked = await eventually(
      () => telegram.sent.slice(before).find((entry) => entry.reply_markup?.inline_keyboard?.length > 0),
      { timeoutMs: 15_000 },
    )
    const buttons = asked.reply_markup.inline_keyboard.flat() as Array<{ text: string; callback_data: string }>
    const approve = buttons.find((button) => button.callback_data.startsWith("a"))!
    const afterAsk = telegram.sent.length
    telegram.pushUpdate({
      callback_query: {
        id: "cb-e2e",
        from: { id: ownerId, is_bot: false, first_name: "T" },
        chat_instance: "x",
        data: approve.callback_data,
        message: { message_id: 51, date: 1, chat: { id: ownerId, type: "private" }, text: asked.text },
      },
    })
    const answer = await eventually(
      () => telegram.sent.slice(afterAsk).find((entry) => String(entry.text).includes("Launched.")),
      { timeoutMs: 15_000 },
    )
    expect(String(answer.chat_id)).toBe(String(ownerId))
  })
})

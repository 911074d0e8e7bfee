import { Inbox, ToolRegistry } from "@aide/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, startChatServer } from "./support/chat.js"
import { browserKeys, decrypt, type PushRequest, startPushService, verifyVapid } from "./support/pushService.js"
import { request } from "./support/server.js"

/** A tool that needs the owner's approval: its call pauses the run. */
const tools = ToolRegistry.source({
  id: "probe",
  kind: "plugin",
  tools: Effect.succeed([
    {
      name: "delete_file",
      description: "Deletes a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      requireApproval: true,
      execute: () => Effect.succeed({ deleted: true }),
    },
  ]),
})

const until = async <A>(probe: () => A | undefined, what: string): Promise<A> => {
  for (let n = 0; n < 500; n++) {
    const value = probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("Web Push against a push service started by the test", () => {
  let server: ChatTestServer
  let service: Awaited<ReturnType<typeof startPushService>>
  let publicKey: string
  const subscribed = new Set<string>()

  const api = (
    path: string,
    init: { readonly method?: string; readonly body?: unknown; readonly token?: string } = {},
  ) => request(`${server.url}${path}`, { token: server.token, ...init })

  const subscribe = async (path: string) => {
    const keys = browserKeys()
    const endpoint = `${service.origin}${path}`
    const response = await api("/api/push/subscriptions", { body: { endpoint, keys: keys.json, expirationTime: null } })
    expect(response).toMatchObject({ status: 201, body: { subscribed: true } })
    subscribed.add(endpoint)
    return { endpoint, keys }
  }

  const pushesTo = (path: string) => service.received.filter((pushed) => pushed.path === path)

  const payloadOf = (pushed: PushRequest, keys: ReturnType<typeof browserKeys>) =>
    JSON.parse(decrypt(pushed.body, keys))

  beforeAll(async () => {
    service = await startPushService()
    server = await startChatServer({
      kernel: { tools, push: { allowHttpLoopback: true, backoff: "5 millis", maxSubscriptions: 3 } },
    })
    publicKey = (await api("/api/push/vapid-public-key")).body.publicKey
  })
  afterAll(async () => {
    await server.close()
    await service.close()
  })
  beforeEach(async () => {
    for (const endpoint of subscribed) await api("/api/push/subscriptions", { method: "DELETE", body: { endpoint } })
    subscribed.clear()
    service.received.length = 0
    service.statuses.clear()
    service.hooks.onPush = undefined
    server.model.reset()
  })

  it("serves the VAPID public key to the signed-in owner only: an uncompressed P-256 point, stable", async () => {
    expect((await request(`${server.url}/api/push/vapid-public-key`)).status).toBe(401)
    const point = Buffer.from(publicKey, "base64url")
    expect(point.byteLength).toBe(65)
    expect(point[0]).toBe(4)
    expect((await api("/api/push/vapid-public-key")).body).toEqual({ publicKey })
  })

  it("checks subscriptions: https (loopback http allowed here), key sizes, bounded, capped; unsubscribes by endpoint", async () => {
    const { json } = browserKeys()
    const post = (body: unknown) => api("/api/push/subscriptions", { body })
    expect(await post({ endpoint: "http://push.example/x", keys: json })).toMatchObject({
      status: 400,
      body: { error: "endpoint: must be https" },
    })
    expect((await post({ endpoint: "https://10.0.0.1/x", keys: json })).status).toBe(400)
    expect((await post({ endpoint: "ftp://push.example/x", keys: json })).status).toBe(400)
    expect((await post({ endpoint: "https://push.example/x", keys: { ...json, p256dh: "AAAA" } })).body).toEqual({
      error: "keys.p256dh: must be an uncompressed P-256 public key, base64url",
    })
    expect((await post({ endpoint: "https://push.example/x", keys: { ...json, auth: "AAAA" } })).status).toBe(400)
    expect((await post({ endpoint: "https://push.example/x" })).status).toBe(400)
    expect((await post({ endpoint: `https://push.example/${"x".repeat(1100)}`, keys: json })).status).toBe(400)
    for (const n of [1, 2, 3]) await subscribe(`/cap/${n}`)
    // The same endpoint again replaces its keys; a fourth browser is refused.
    await subscribe("/cap/1")
    const fourth = await post({ endpoint: `${service.origin}/cap/4`, keys: json })
    expect(fourth.status).toBe(409)
    expect(fourth.body.error).toMatch(/at most 3 browsers/)
    const remove = (endpoint: string) => api("/api/push/subscriptions", { method: "DELETE", body: { endpoint } })
    expect(await remove(`${service.origin}/cap/2`)).toMatchObject({ status: 200, body: { unsubscribed: true } })
    expect((await remove(`${service.origin}/cap/2`)).status).toBe(404)
    expect((await post({ endpoint: `${service.origin}/cap/4`, keys: json })).status).toBe(201)
    subscribed.add(`${service.origin}/cap/4`)
    expect((await request(`${server.url}/api/push/subscriptions`, { body: { endpoint: "x" } })).status).toBe(401)
  })

  it("pushes a new inbox message VAPID-signed and encrypted (RFC 8291): only ciphertext on the wire", async () => {
    const { endpoint, keys } = await subscribe("/sub/a")
    await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) =>
        inbox.create({ subject: "Daily brief", body: "Three  things\nto do today.", destination: "web" }),
      ),
    )
    const [pushed] = await until(() => (pushesTo("/sub/a").length > 0 ? pushesTo("/sub/a") : undefined), "a push")
    const claims = verifyVapid(pushed!.headers.authorization, publicKey, service.origin)
    expect(claims.sub).toMatch(/^(mailto:|https:)/)
    expect(pushed!.headers["content-encoding"]).toBe("aes128gcm")
    expect(pushed!.headers["content-type"]).toBe("application/octet-stream")
    expect(Number(pushed!.headers.ttl)).toBeGreaterThan(0)
    expect(pushed!.body.includes(Buffer.from("Daily brief"))).toBe(false)
    expect(payloadOf(pushed!, keys)).toEqual({
      title: "Daily brief",
      body: "Three things to do today.",
      url: "/app/inbox",
    })
    // Another browser's keys cannot read it.
    expect(() => decrypt(pushed!.body, browserKeys())).toThrow()
    expect(endpoint).toBe(`${service.origin}/sub/a`)
  })

  it("offers browser as a destination and delivers a message addressed to it, linking its thread", async () => {
    expect((await api("/api/schedule/destinations")).body.destinations).toContain("browser")
    const { keys } = await subscribe("/sub/b")
    const message = await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) =>
        inbox.create({ subject: "Report", body: "Done.", destination: "browser", threadId: "thread-1" }),
      ),
    )
    const sent = await until(() => (pushesTo("/sub/b").length > 0 ? pushesTo("/sub/b")[0] : undefined), "a push")
    expect(payloadOf(sent, keys)).toEqual({ title: "Report", body: "Done.", url: "/app/chat/thread-1" })
    for (let n = 0; n < 200 && (await api(`/api/inbox/${message.id}`)).body.status !== "sent"; n++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect((await api(`/api/inbox/${message.id}`)).body.status).toBe("sent")
  })

  it("deletes a subscription the push service answers 410; retries a 500 three times and keeps it", async () => {
    await subscribe("/sub/gone")
    await subscribe("/sub/flaky")
    service.statuses.set("/sub/gone", 410)
    service.statuses.set("/sub/flaky", 500)
    await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) => inbox.create({ subject: "Ping", body: "x", destination: "web" })),
    )
    await until(() => (pushesTo("/sub/flaky").length === 3 ? true : undefined), "three attempts")
    const remove = (path: string) =>
      api("/api/push/subscriptions", { method: "DELETE", body: { endpoint: `${service.origin}${path}` } })
    await until(() => (pushesTo("/sub/gone").length === 1 ? true : undefined), "the push to the gone endpoint")
    // Pruned: gone from the store (poll: the prune follows the answer).
    let status = 0
    for (let n = 0; n < 100 && status !== 404; n++) {
      status = (await remove("/sub/gone")).status
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(status).toBe(404)
    expect(pushesTo("/sub/gone")).toHaveLength(1)
    expect((await remove("/sub/flaky")).status).toBe(200)
    subscribed.clear()
  })

  it("pushes a tool call waiting for approval with the tool's name, never its input", async () => {
    const { keys } = await subscribe("/sub/c")
    server.model.script({
      toolCalls: [{ id: "call_1", name: "probe_delete_file", arguments: { path: "/secret/plan.txt" } }],
    })
    const response = await chat(server, "Delete the plan")
    expect(response.status).toBe(200)
    await response.text()
    const threadId = response.headers.get("x-thread-id")!
    const pushed = await until(() => pushesTo("/sub/c")[0], "the approval push")
    const payload = payloadOf(pushed, keys)
    expect(payload).toEqual({
      title: "Approval waiting",
      body: "Allow probe_delete_file?",
      url: `/app/chat/${threadId}`,
    })
    expect(JSON.stringify(payload)).not.toContain("secret")
  })

  it("pushes an approval once it is committed: on receipt, the thread shows it waiting", async () => {
    const { keys } = await subscribe("/sub/d")
    // What a browser does on a push: open its link. The push service answers once it has.
    const seenOnReceipt: Array<Array<unknown>> = []
    service.hooks.onPush = async (pushed) => {
      const { url } = payloadOf(pushed, keys) as { url: string }
      const threadId = decodeURIComponent(url.slice("/app/chat/".length))
      const thread = await api(`/api/threads/${encodeURIComponent(threadId)}`)
      const parts = (thread.body.messages ?? []).flatMap((message: { parts: Array<unknown> }) => message.parts)
      seenOnReceipt.push(parts.filter((part: { state?: string }) => part.state === "approval-requested"))
    }
    server.model.script({
      toolCalls: [{ id: "call_2", name: "probe_delete_file", arguments: { path: "/tmp/receipt" } }],
    })
    const response = await chat(server, "Delete the receipt")
    await response.text()
    await until(() => pushesTo("/sub/d")[0], "the approval push")
    await until(() => (seenOnReceipt.length > 0 ? true : undefined), "the thread read on receipt")
    expect(seenOnReceipt[0]).toEqual([
      expect.objectContaining({ toolName: "probe_delete_file", toolCallId: "call_2", state: "approval-requested" }),
    ])
  })
})

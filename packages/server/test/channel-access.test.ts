import { type FakeTelegram, startFakeTelegram } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, eventually, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

const OWNER = 4242
const STRANGER = 777

const message = (from: number, text: string) => ({
  message: {
    message_id: Date.now(),
    date: 1,
    chat: { id: from, type: "private" },
    from: { id: from, is_bot: false, first_name: "Eve" },
    text,
  },
})

/** Owner-only Telegram through the server: pairing over the API, the connection on the card. */
describe("channel access through the server", () => {
  let server: ChatTestServer
  let telegram: FakeTelegram
  const api = (path: string, method = "GET") => request(`${server.url}${path}`, { method, token: server.token })
  const plugin = async () =>
    ((await api("/api/plugins")).body.plugins as Array<any>).find((entry) => entry.id === "telegram")
  const sentTo = (chatId: number) => telegram.sent.filter((entry) => String(entry.chat_id) === String(chatId))
  const enable = (settings: Record<string, unknown>) =>
    request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: {
        plugins: {
          telegram: { enabled: true, ownerId: String(OWNER), apiRoot: telegram.apiRoot, pairing: true, ...settings },
        },
      },
    })

  beforeAll(async () => {
    server = await startChatServer()
    telegram = await startFakeTelegram()
  })
  afterAll(async () => {
    await server?.close()
    await telegram?.close()
  })

  it("a stranger gets nothing; their pairing request is listed and in the inbox; approved, they are answered", async () => {
    expect((await enable({ botToken: telegram.token })).status).toBe(200)
    const connected = await eventually(
      async () => ((await plugin())?.provides.channels.connection?.state === "connected" ? plugin() : undefined),
      { timeoutMs: 15_000 },
    )
    expect(connected.provides.channels).toMatchObject({ loaded: true, realtime: true, connection: { reason: null } })

    telegram.pushUpdate(message(STRANGER, "let me in"))
    const listed = await eventually(
      async () => {
        const answer = await api("/api/plugins/telegram/pairings")
        return answer.body.pairings?.length > 0 ? answer : undefined
      },
      { timeoutMs: 10_000 },
    )
    expect(listed.status).toBe(200)
    const pairing = listed.body.pairings[0]
    expect(pairing).toMatchObject({ channelId: "telegram", senderId: String(STRANGER), senderName: "Eve" })
    expect(listed.body.senders).toEqual([])
    const inbox = await api("/api/inbox")
    const notice = (inbox.body.messages as Array<any>).find((entry) => entry.subject === "Pairing request on Telegram")
    expect(notice.body).toContain(pairing.code)
    expect(sentTo(STRANGER)).toEqual([])

    expect((await api("/api/plugins/telegram/pairings/NOPE2345/approve", "POST")).status).toBe(404)
    expect((await api(`/api/plugins/telegram/pairings/${"A".repeat(17)}/approve`, "POST")).status).toBe(400)
    expect((await api(`/api/plugins/nope/pairings/${pairing.code}/approve`, "POST")).status).toBe(404)
    expect((await request(`${server.url}/api/plugins/telegram/pairings`)).status).toBe(401)
    const approved = await api(`/api/plugins/telegram/pairings/${pairing.code}/approve`, "POST")
    expect(approved.status).toBe(200)
    expect(approved.body).toEqual(pairing)
    expect((await api(`/api/plugins/telegram/pairings/${pairing.code}/reject`, "POST")).status).toBe(404)
    expect((await api("/api/plugins/telegram/pairings")).body).toMatchObject({
      pairings: [],
      senders: [{ channelId: "telegram", senderId: String(STRANGER), senderName: "Eve" }],
    })

    server.model.script({ text: "Welcome, Eve." })
    telegram.pushUpdate(message(STRANGER, "thanks"))
    const reply = await eventually(() => sentTo(STRANGER)[0], { timeoutMs: 10_000 })
    expect(reply.text).toContain("Welcome, Eve.")

    expect((await api(`/api/plugins/telegram/senders/telegram/${STRANGER}`, "DELETE")).body).toEqual({
      removed: String(STRANGER),
    })
    expect((await api(`/api/plugins/telegram/senders/telegram/${STRANGER}`, "DELETE")).status).toBe(404)
  })

  it("a realtime channel that keeps failing shows it, with why and without its token", async () => {
    const wrong = "999:wrong-token-value"
    expect((await enable({ botToken: wrong })).status).toBe(200)
    const failing = await eventually(
      async () => ((await plugin())?.provides.channels.connection?.state === "reconnecting" ? plugin() : undefined),
      { timeoutMs: 15_000 },
    )
    const connection = failing.provides.channels.connection
    expect(connection.reason).toMatch(/401|Unauthorized/)
    expect(connection.failures).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(failing)).not.toContain("wrong-token-value")
  })
})

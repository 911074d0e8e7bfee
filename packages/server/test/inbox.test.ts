import { Channel, ChannelRegistry, Inbox } from "@aide/kernel"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Consecutive messages land on distinct milliseconds, so "newest" is plain to see. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3))

const delivered: Array<Channel.OutboundMessage> = []

const testChannel = (
  key: string,
  options: { readonly notifies: boolean; readonly fails: boolean },
): Channel.Channel => ({
  key,
  displayName: `Test ${key}`,
  supportsNotifications: options.notifies,
  send: (message) =>
    options.fails
      ? Effect.fail(new Channel.ChannelDeliveryError({ channel: key, message: "unreachable" }))
      : Effect.sync(() => {
          delivered.push(message)
        }),
})

/** A working channel, one that always fails and one that cannot notify (never a destination). */
const channels = Layer.mergeAll(
  ChannelRegistry.channel(testChannel("telegram", { notifies: true, fails: false })),
  ChannelRegistry.channel(testChannel("pager", { notifies: true, fails: true })),
  ChannelRegistry.channel(testChannel("webhook", { notifies: false, fails: false })),
)

describe.each(storageKinds)("inbox API (%s)", (storage) => {
  let server: TestServer
  let token: string

  const api = (
    path: string,
    init: { readonly method?: string; readonly body?: unknown; readonly token?: string } = {},
  ) => request(`${server.url}${path}`, { token, ...init })

  /** Messages come from the scheduler and the agent, not from the API: seeded through `Inbox`. */
  const seed = async (input: Partial<Inbox.NewInboxMessage> & { readonly subject: string }) => {
    const message = await server.run(
      Effect.flatMap(Inbox.Inbox, (inbox) => inbox.create({ body: "body", destination: "web", ...input })),
    )
    await tick()
    return message
  }

  const eventuallyStatus = async (id: string, status: string) => {
    for (let n = 0; n < 200; n++) {
      const response = await api(`/api/inbox/${id}`)
      if (response.body.status === status) return response.body
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`message ${id} never became ${status}`)
  }

  beforeAll(async () => {
    server = await startServer({
      storage,
      // Retries in milliseconds, so a failing channel gives up within the test.
      kernel: { channels, inbox: { backoff: "5 millis", factor: 2 } },
    })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())
  beforeEach(async () => {
    delivered.length = 0
    await server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM inbox_messages`))
  })

  describe("GET /api/inbox", () => {
    it("answers { messages: [] } for an empty inbox", async () => {
      const response = await api("/api/inbox")
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ messages: [] })
    })

    it("lists active messages newest first, as SPEC inbox messages", async () => {
      const older = await seed({ subject: "Older", body: "**bold**", threadId: "thread-1" })
      const newer = await seed({ subject: "Newer" })
      const response = await api("/api/inbox")
      expect(response.status).toBe(200)
      expect(response.body.messages).toEqual([
        {
          id: newer.id,
          subject: "Newer",
          body: "body",
          threadId: null,
          destination: "web",
          status: "sent",
          read: false,
          createdAt: expect.stringMatching(isoTimestamp),
          archivedAt: null,
        },
        {
          id: older.id,
          subject: "Older",
          body: "**bold**",
          threadId: "thread-1",
          destination: "web",
          status: "sent",
          read: false,
          createdAt: expect.stringMatching(isoTimestamp),
          archivedAt: null,
        },
      ])
      expect(response.body.messages[0].id).toMatch(uuid)
      expect(response.body.messages[0].createdAt > response.body.messages[1].createdAt).toBe(true)
    })

    it("?archived=true lists archived messages only; ?archived=false is the default", async () => {
      const kept = await seed({ subject: "Kept" })
      const first = await seed({ subject: "Archived first" })
      const second = await seed({ subject: "Archived second" })
      await api(`/api/inbox/${first.id}`, { method: "PATCH", body: { archived: true } })
      await api(`/api/inbox/${second.id}`, { method: "PATCH", body: { archived: true } })
      const subjects = (body: any) => body.messages.map((message: any) => message.subject)

      const archived = await api("/api/inbox?archived=true")
      expect(archived.status).toBe(200)
      expect(subjects(archived.body)).toEqual(["Archived second", "Archived first"])
      expect(archived.body.messages[0].archivedAt).toMatch(isoTimestamp)

      expect(subjects((await api("/api/inbox")).body)).toEqual([kept.subject])
      expect(subjects((await api("/api/inbox?archived=false")).body)).toEqual([kept.subject])
    })

    it("answers each message as GET /api/inbox/:id does, field for field and in the same order", async () => {
      const plain = await seed({ subject: "Plain" })
      const linked = await seed({ subject: "Linked", body: "# Title\n\n“quoted” ✓", threadId: "thread-7" })
      const archived = await seed({ subject: "Archived", destination: "telegram" })
      await api(`/api/inbox/${linked.id}`, { method: "PATCH", body: { read: true } })
      await api(`/api/inbox/${archived.id}`, { method: "PATCH", body: { archived: true, read: true } })
      await eventuallyStatus(archived.id, "sent")
      const one = async (id: string) => JSON.stringify((await api(`/api/inbox/${id}`)).body)
      const listed = (body: any) => body.messages.map((message: unknown) => JSON.stringify(message))
      expect(listed((await api("/api/inbox")).body)).toEqual([await one(linked.id), await one(plain.id)])
      expect(listed((await api("/api/inbox?archived=true")).body)).toEqual([await one(archived.id)])
    })

    it.each(["yes", "1", "TRUE", ""])("?archived=%s is 400", async (value) => {
      const response = await api(`/api/inbox?archived=${value}`)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "archived must be true or false" })
    })
  })

  describe("GET /api/inbox/:id", () => {
    it("answers the message", async () => {
      const message = await seed({ subject: "One", threadId: "t1" })
      const response = await api(`/api/inbox/${message.id}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        id: message.id,
        subject: "One",
        body: "body",
        threadId: "t1",
        destination: "web",
        status: "sent",
        read: false,
        createdAt: message.createdAt.toISOString(),
        archivedAt: null,
      })
    })

    it("is 404 Message not found for an unknown id", async () => {
      const response = await api("/api/inbox/00000000-0000-4000-8000-000000000000")
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "Message not found" })
    })
  })

  describe("PATCH /api/inbox/:id", () => {
    it("marks a message read and unread", async () => {
      const message = await seed({ subject: "S" })
      const read = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: { read: true } })
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({ id: message.id, read: true, archivedAt: null })
      expect((await api(`/api/inbox/${message.id}`)).body.read).toBe(true)
      const unread = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: { read: false } })
      expect(unread.body.read).toBe(false)
    })

    it("archived true sets archivedAt, false clears it and the message is active again", async () => {
      const message = await seed({ subject: "S" })
      const archived = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: { archived: true } })
      expect(archived.status).toBe(200)
      expect(archived.body.archivedAt).toMatch(isoTimestamp)
      expect((await api("/api/inbox")).body.messages).toEqual([])

      // Archiving an archived message keeps its archivedAt.
      await tick()
      const again = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: { archived: true, read: true } })
      expect(again.body).toMatchObject({ archivedAt: archived.body.archivedAt, read: true })

      const active = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: { archived: false } })
      expect(active.status).toBe(200)
      expect(active.body).toMatchObject({ archivedAt: null, read: true })
      expect((await api("/api/inbox")).body.messages.map((listed: any) => listed.id)).toEqual([message.id])
      expect((await api("/api/inbox?archived=true")).body.messages).toEqual([])
    })

    it("an empty object changes nothing and answers the message", async () => {
      const message = await seed({ subject: "S" })
      const response = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: {} })
      expect(response.status).toBe(200)
      expect(response.body).toEqual((await api(`/api/inbox/${message.id}`)).body)
      expect(response.body).toMatchObject({ read: false, archivedAt: null })
    })

    it.each([
      [{ read: "yes" }, "read must be a boolean"],
      [{ read: null }, "read must be a boolean"],
      [{ archived: 1 }, "archived must be a boolean"],
      [{ archived: null }, "archived must be a boolean"],
      [[], "request body must be a JSON object"],
      ["true", "request body must be a JSON object"],
    ])("%j is 400 %s", async (body, error) => {
      const message = await seed({ subject: "S" })
      const response = await api(`/api/inbox/${message.id}`, {
        method: "PATCH",
        body: typeof body === "string" ? body : JSON.stringify(body),
      })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error })
      expect((await api(`/api/inbox/${message.id}`)).body).toMatchObject({ read: false, archivedAt: null })
    })

    it("a body that is not JSON is 400", async () => {
      const message = await seed({ subject: "S" })
      const response = await api(`/api/inbox/${message.id}`, { method: "PATCH", body: "{read:" })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "request body must be valid JSON" })
    })

    it("is 404 Message not found for an unknown id", async () => {
      const response = await api("/api/inbox/nope", { method: "PATCH", body: { read: true } })
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: "Message not found" })
    })
  })

  describe("DELETE /api/inbox/:id", () => {
    it("deletes the message for good and answers { deleted: id }", async () => {
      const message = await seed({ subject: "S" })
      const archived = await seed({ subject: "A" })
      await api(`/api/inbox/${archived.id}`, { method: "PATCH", body: { archived: true } })

      const response = await api(`/api/inbox/${message.id}`, { method: "DELETE" })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ deleted: message.id })
      expect((await api(`/api/inbox/${message.id}`)).status).toBe(404)
      expect((await api("/api/inbox")).body.messages).toEqual([])

      // Archived messages can be deleted too.
      expect((await api(`/api/inbox/${archived.id}`, { method: "DELETE" })).body).toEqual({ deleted: archived.id })
      expect((await api("/api/inbox?archived=true")).body.messages).toEqual([])
    })

    it("is 404 Message not found for an unknown or already deleted id", async () => {
      const message = await seed({ subject: "S" })
      await api(`/api/inbox/${message.id}`, { method: "DELETE" })
      for (const id of [message.id, "nope"]) {
        const response = await api(`/api/inbox/${id}`, { method: "DELETE" })
        expect(response.status).toBe(404)
        expect(response.body).toEqual({ error: "Message not found" })
      }
    })
  })

  describe("delivery through a channel", () => {
    it("a message for a channel is pending, then sent, and readable in the web inbox", async () => {
      const message = await seed({
        subject: "Daily report",
        body: "# All good",
        threadId: "t1",
        destination: "telegram",
      })
      expect(message.status).toBe("pending")
      const sent = await eventuallyStatus(message.id, "sent")
      expect(sent).toMatchObject({ subject: "Daily report", destination: "telegram", read: false, archivedAt: null })
      expect(delivered).toEqual([{ subject: "Daily report", body: "# All good", threadId: "t1" }])
      expect((await api("/api/inbox")).body.messages.map((listed: any) => listed.id)).toEqual([message.id])
    })

    it("a delivery failing every retry leaves the message failed, still in the web inbox", async () => {
      const message = await seed({ subject: "Alert", destination: "pager" })
      const failed = await eventuallyStatus(message.id, "failed")
      expect(failed).toMatchObject({ subject: "Alert", destination: "pager", read: false })
      expect((await api("/api/inbox")).body.messages).toEqual([failed])
    })
  })

  describe("GET /api/schedule/destinations", () => {
    it("answers Web Inbox and the keys of registered channels that support notifications", async () => {
      const response = await api("/api/schedule/destinations")
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ destinations: ["Web Inbox", "telegram", "pager", "browser"] })
    })
  })

  describe("authentication", () => {
    it.each([
      ["GET", "/api/inbox"],
      ["GET", "/api/inbox/x"],
      ["PATCH", "/api/inbox/x"],
      ["DELETE", "/api/inbox/x"],
      ["GET", "/api/schedule/destinations"],
    ])("%s %s without a token is 401 unauthorized", async (method, path) => {
      const response = await request(`${server.url}${path}`, {
        method,
        ...(method === "PATCH" ? { body: { read: true } } : {}),
      })
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
    })
  })
})

describe("GET /api/schedule/destinations without channels", () => {
  it("answers Web Inbox and browser (Web Push, always registered)", async () => {
    const server = await startServer()
    try {
      const { token } = await setup(server)
      const response = await request(`${server.url}/api/schedule/destinations`, { token })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ destinations: ["Web Inbox", "browser"] })
    } finally {
      await server.close()
    }
  })
})

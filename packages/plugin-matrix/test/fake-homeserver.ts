/**
 * A fake Matrix homeserver on loopback, for the client-server endpoints the channel uses
 * (matrix-spec `data/api/client-server/*.yaml`, `content/client-server-api/_index.md`):
 * - `GET /account/whoami`; `Authorization: Bearer` or 401 `M_MISSING_TOKEN` / `M_UNKNOWN_TOKEN`;
 * - `GET /sync?since&timeout`: long-polls until something newer than `since` exists or `timeout`
 *   ms pass; `rooms.join[id].timeline.events` (the last 50, `limited` past that),
 *   `rooms.invite[id].invite_state.events` (stripped state with the bot's `m.room.member`
 *   invite, `is_direct`), `next_batch`;
 * - `POST /rooms/{id}/join`; `POST /createRoom` (`invite`, `is_direct`);
 * - `PUT /rooms/{id}/send/{type}/{txnId}`: idempotent per transaction id (the same response
 *   again), `M_DUPLICATE_ANNOTATION` for the same reaction twice, `M_FORBIDDEN` outside a room;
 * - `GET /rooms/{id}/event/{eventId}`; `GET`/`PUT /user/{userId}/account_data/{type}`
 *   (`M_NOT_FOUND` when unset);
 * - 429 `M_LIMIT_EXCEEDED` with `retry_after_ms` and `Retry-After` on demand.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface MatrixEvent {
  readonly event_id: string
  readonly type: string
  readonly sender: string
  readonly content: any
  readonly origin_server_ts: number
  readonly room_id: string
  readonly state_key?: string
}

interface Room {
  readonly members: Map<string, "invite" | "join">
  invite: { sender: string; isDirect: boolean; pos: number } | null
}

const PREFIX = "/_matrix/client/v3"

export const startFakeHomeserver = async () => {
  const token = `syt_${randomBytes(12).toString("base64url")}`
  const userId = "@aide:fake.test"
  const log: Array<{ pos: number; event: MatrixEvent }> = []
  const rooms = new Map<string, Room>()
  const accountData = new Map<string, unknown>()
  const txns = new Map<string, string>()
  const syncs: Array<{ since: string | null; timeout: number }> = []
  const accountWrites: Array<{ type: string; body: unknown }> = []
  const created: Array<{ roomId: string; invite: Array<string> }> = []
  // forced429From: the 429s wait until the bot has sent that many messages.
  const control = { forced429: 0, forced429From: 0, retryAfterMs: 150 as number | undefined, lostResponses: 0 }
  const waiters = new Set<() => void>()
  const sentWaiters: Array<(event: MatrixEvent) => void> = []
  const pollWaiters: Array<() => void> = []
  let pos = 0
  let counter = 0

  const wake = () => {
    for (const waiter of waiters) waiter()
    waiters.clear()
  }
  const pollSockets = new Set<import("node:net").Socket>()
  const newRoom = (given?: string) => {
    const roomId = given ?? `!r${++counter}${randomBytes(4).toString("hex")}:fake.test`
    rooms.set(roomId, { members: new Map(), invite: null })
    return roomId
  }
  const append = (roomId: string, type: string, sender: string, content: any, stateKey?: string) => {
    const event: MatrixEvent = {
      event_id: `$e${++counter}${randomBytes(6).toString("base64url")}`,
      type,
      sender,
      content,
      origin_server_ts: Date.now(),
      room_id: roomId,
      ...(stateKey === undefined ? {} : { state_key: stateKey }),
    }
    log.push({ pos: ++pos, event })
    wake()
    if (sender === userId && type === "m.room.message") for (const waiter of sentWaiters.splice(0)) waiter(event)
    return event
  }

  const syncBody = (since: number | null) => {
    const join: Record<string, unknown> = {}
    const invite: Record<string, unknown> = {}
    for (const [roomId, room] of rooms) {
      const membership = room.members.get(userId)
      if (membership === "join") {
        const events = log.filter((entry) => entry.event.room_id === roomId && entry.pos > (since ?? 0))
        if (events.length > 0 || since === null) {
          const last = events.slice(-50)
          join[roomId] = {
            timeline: {
              events: last.map(({ event: { room_id: _, ...rest } }) => rest),
              limited: events.length > 50,
              prev_batch: `p${last[0]?.pos ?? pos}`,
            },
            state: { events: [] },
          }
        }
      } else if (membership === "invite" && room.invite !== null && room.invite.pos > (since ?? 0)) {
        invite[roomId] = {
          invite_state: {
            events: [
              { type: "m.room.create", state_key: "", sender: room.invite.sender, content: {} },
              {
                type: "m.room.member",
                state_key: userId,
                sender: room.invite.sender,
                content: { membership: "invite", ...(room.invite.isDirect ? { is_direct: true } : {}) },
              },
            ],
          },
        }
      }
    }
    return { next_batch: `s${pos}`, rooms: { join, invite, leave: {} } }
  }
  const hasNews = (since: number) =>
    [...rooms].some(
      ([roomId, room]) =>
        (room.members.get(userId) === "join" &&
          log.some((entry) => entry.event.room_id === roomId && entry.pos > since)) ||
        (room.members.get(userId) === "invite" && (room.invite?.pos ?? 0) > since),
    )

  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers })
    response.end(JSON.stringify(body))
  }
  const error = (response: ServerResponse, status: number, errcode: string, message: string) =>
    json(response, status, { errcode, error: message })
  const readJson = async (request: IncomingMessage): Promise<any> => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    return text === "" ? {} : JSON.parse(text)
  }

  const sync = async (request: IncomingMessage, response: ServerResponse, query: URLSearchParams) => {
    const sinceText = query.get("since")
    const since = sinceText === null ? null : Number(sinceText.slice(1))
    const timeout = Math.min(Number(query.get("timeout") ?? 0), 60_000)
    syncs.push({ since: sinceText, timeout })
    if (since !== null && !hasNews(since) && timeout > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          waiters.delete(done)
          resolve()
        }
        const timer = setTimeout(done, timeout)
        waiters.add(done)
        pollSockets.add(request.socket)
        for (const waiter of pollWaiters.splice(0)) waiter()
        request.on("close", done)
      })
    }
    pollSockets.delete(request.socket)
    if (!response.destroyed) json(response, 200, syncBody(since))
  }

  const onRequest = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const method = request.method ?? "GET"
    if (!url.pathname.startsWith(PREFIX)) return error(response, 404, "M_UNRECOGNIZED", "Unrecognized request")
    const path = url.pathname.slice(PREFIX.length)
    const auth = request.headers.authorization
    if (auth === undefined) return error(response, 401, "M_MISSING_TOKEN", "Missing access token")
    if (auth !== `Bearer ${token}`) return error(response, 401, "M_UNKNOWN_TOKEN", "Unknown access token")
    const botMessages = log.filter((entry) => entry.event.sender === userId && entry.event.type === "m.room.message")
    if (control.forced429 > 0 && botMessages.length >= control.forced429From) {
      control.forced429 -= 1
      const ms = control.retryAfterMs
      return json(
        response,
        429,
        {
          errcode: "M_LIMIT_EXCEEDED",
          error: "Too many requests",
          ...(ms === undefined ? {} : { retry_after_ms: ms }),
        },
        { "retry-after": String(Math.ceil((ms ?? 1000) / 1000)) },
      )
    }
    const parts = path.split("/").map(decodeURIComponent)
    if (method === "GET" && path === "/account/whoami")
      return json(response, 200, { user_id: userId, device_id: "FAKEDEV" })
    if (method === "GET" && path === "/sync") return sync(request, response, url.searchParams)
    if (method === "POST" && parts[1] === "rooms" && parts[3] === "join" && parts.length === 4) {
      const room = rooms.get(parts[2]!)
      if (room === undefined || room.members.get(userId) === undefined)
        return error(response, 403, "M_FORBIDDEN", "not invited")
      room.members.set(userId, "join")
      append(parts[2]!, "m.room.member", userId, { membership: "join" }, userId)
      return json(response, 200, { room_id: parts[2] })
    }
    if (method === "POST" && path === "/createRoom") {
      const body = await readJson(request)
      const roomId = newRoom()
      const room = rooms.get(roomId)!
      room.members.set(userId, "join")
      const invite = Array.isArray(body.invite) ? body.invite.map(String) : []
      for (const user of invite) room.members.set(user, "invite")
      created.push({ roomId, invite })
      return json(response, 200, { room_id: roomId })
    }
    if (method === "PUT" && parts[1] === "rooms" && parts[3] === "send" && parts.length === 6) {
      const [, , roomId, , type] = parts as [string, string, string, string, string, string]
      const body = await readJson(request)
      const room = rooms.get(roomId)
      if (room?.members.get(userId) !== "join") return error(response, 403, "M_FORBIDDEN", "You are not in this room")
      const key = `${token} ${path}`
      const previous = txns.get(key)
      if (previous !== undefined) return json(response, 200, { event_id: previous })
      if (type === "m.reaction") {
        const relation = body["m.relates_to"]
        const duplicate = log.some(
          ({ event }) =>
            event.type === "m.reaction" &&
            event.sender === userId &&
            event.content?.["m.relates_to"]?.event_id === relation?.event_id &&
            event.content?.["m.relates_to"]?.key === relation?.key,
        )
        if (duplicate) return error(response, 400, "M_DUPLICATE_ANNOTATION", "Can't send same reaction twice")
      }
      const event = append(roomId, type, userId, body)
      txns.set(key, event.event_id)
      if (control.lostResponses > 0) {
        control.lostResponses -= 1
        return error(response, 502, "M_UNKNOWN", "Bad gateway")
      }
      return json(response, 200, { event_id: event.event_id })
    }
    if (method === "GET" && parts[1] === "rooms" && parts[3] === "event" && parts.length === 5) {
      const found = log.find((entry) => entry.event.event_id === parts[4] && entry.event.room_id === parts[2])
      if (found === undefined || rooms.get(parts[2]!)?.members.get(userId) !== "join") {
        return error(response, 404, "M_NOT_FOUND", "Event not found")
      }
      const { room_id: _, ...event } = found.event
      return json(response, 200, event)
    }
    if (parts[1] === "user" && parts[3] === "account_data" && parts.length === 5) {
      if (parts[2] !== userId) return error(response, 403, "M_FORBIDDEN", "Cannot access other users' account data")
      const type = parts[4]!
      if (method === "GET") {
        return accountData.has(type)
          ? json(response, 200, accountData.get(type))
          : error(response, 404, "M_NOT_FOUND", "not found")
      }
      if (method === "PUT") {
        const body = await readJson(request)
        accountData.set(type, body)
        accountWrites.push({ type, body })
        return json(response, 200, {})
      }
    }
    error(response, 404, "M_UNRECOGNIZED", "Unrecognized request")
  }

  const server = createServer((request, response) => {
    onRequest(request, response).catch(() => error(response, 500, "M_UNKNOWN", "fake failed"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    token,
    userId,
    homeserverUrl: `http://127.0.0.1:${port}`,
    control,
    syncs,
    accountData,
    accountWrites,
    created,
    /** Someone invites the bot into a new room. */
    invite: (input: { from: string; isDirect?: boolean; roomId?: string }) => {
      const roomId = newRoom(input.roomId)
      const room = rooms.get(roomId)!
      room.members.set(input.from, "join")
      room.members.set(userId, "invite")
      room.invite = { sender: input.from, isDirect: input.isDirect ?? true, pos: ++pos }
      wake()
      return roomId
    },
    joined: (roomId: string) => rooms.get(roomId)?.members.get(userId) === "join",
    /** A room the bot is already in, with `user` (history before the channel started). */
    roomWith: (user: string) => {
      const roomId = newRoom()
      rooms.get(roomId)!.members.set(userId, "join").set(user, "join")
      return roomId
    },
    message: (roomId: string, sender: string, body: string, extra: Record<string, unknown> = {}) =>
      append(roomId, "m.room.message", sender, { msgtype: "m.text", body, ...extra }).event_id,
    react: (roomId: string, sender: string, eventId: string, key: string) =>
      append(roomId, "m.reaction", sender, { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } })
        .event_id,
    /** The same event once more, at a new stream position (a server replaying what it sent). */
    redeliver: (eventId: string) => {
      const entry = log.find((candidate) => candidate.event.event_id === eventId)
      if (entry === undefined) throw new Error(`fake homeserver: no event ${eventId}`)
      log.push({ pos: ++pos, event: entry.event })
      wake()
    },
    /** Cuts the connections of the long polls waiting now (the client sees a network error). */
    dropPolls: () => {
      const count = pollSockets.size
      for (const socket of pollSockets) socket.destroy()
      pollSockets.clear()
      return count
    },
    /** Events the bot sent, in order. */
    sent: (type = "m.room.message") =>
      log.filter((entry) => entry.event.sender === userId && entry.event.type === type).map((entry) => entry.event),
    /** Long polls waiting now. */
    waiting: () => waiters.size,
    /** The next message the bot sends. */
    nextSent: () => new Promise<MatrixEvent>((resolve) => sentWaiters.push(resolve)),
    /** Resolves once a long poll is waiting (at once if one is). */
    polling: () => (waiters.size > 0 ? Promise.resolve() : new Promise<void>((resolve) => pollWaiters.push(resolve))),
    close: async () => {
      if (!server.listening) return
      wake()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeHomeserver = Awaited<ReturnType<typeof startFakeHomeserver>>

/**
 * A fake Discord on loopback: the REST API (`/api/v10`) and the Gateway (a real WebSocket
 * server) on one port, following discord-api-docs (`developers/events/gateway.mdx`,
 * `gateway-events.mdx`, `topics/opcodes-and-status-codes.mdx`, `topics/rate-limits.mdx`,
 * `resources/message.mdx`, `interactions/receiving-and-responding.mdx`) for what the channel uses:
 * - Gateway: Hello (op 10) with `heartbeat_interval`; heartbeats (op 1) acked with op 11 (unless
 *   paused); Identify (op 2) → READY with `session_id` and `resume_gateway_url`; Resume (op 6)
 *   replays the events after `seq`, then RESUMED, or answers op 9 `false` for a session closed
 *   with 1000/1001 or unknown; op 7 Reconnect and op 9 on demand; close codes 4001 (unknown
 *   opcode), 4002 (decode error), 4003 (not authenticated), 4004 (bad token), 4005 (identified
 *   twice), 4012 (`v` is not 10), 4014 (disallowed intents).
 * - REST: `Authorization: Bot <token>` or 401; `GET /gateway/bot`; `POST /channels/{id}/messages`
 *   (content ≤ 2,000, `nonce` ≤ 25 deduplicated with `enforce_nonce`, buttons checked), each
 *   channel a bucket with `X-RateLimit-*` headers and 429 `{ retry_after, global }` past it;
 *   `POST /users/@me/channels`; `POST /interactions/{id}/{token}/callback` (once per interaction).
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type WebSocket, WebSocketServer } from "ws"

export interface CreatedMessage {
  readonly id: string
  readonly channelId: string
  readonly content: string
  readonly components: ReadonlyArray<any>
  readonly nonce: string | undefined
  readonly allowedMentions: unknown
  /** `performance.now()` when it was made. */
  readonly createdAt: number
}

interface Session {
  readonly id: string
  readonly events: Array<{ s: number; t: string; d: unknown }>
  seq: number
  valid: boolean
  socket: WebSocket | null
}

interface Connection {
  readonly socket: WebSocket
  readonly path: string
  readonly openedAt: number
  session: Session | null
  heartbeats: Array<{ at: number; d: unknown }>
}

export interface FakeDiscordOptions {
  readonly heartbeatInterval?: number
  /** Intents the bot has not been allowed (privileged ones not toggled): Identify with any → 4014. */
  readonly disallowedIntents?: number
  /** Messages per channel per window before a 429. */
  readonly bucket?: { readonly limit: number; readonly windowMs: number }
  /** The DM channel id `POST /users/@me/channels` gives for a user; default a fresh snowflake. */
  readonly dmChannelOf?: (userId: string) => string
}

const snowflake = (() => {
  let next = 1_100_000_000_000_000_000n
  return () => String(next++)
})()

export const startFakeDiscord = async (options: FakeDiscordOptions = {}) => {
  const token = `fake.${randomBytes(12).toString("base64url")}`
  const botId = snowflake()
  const heartbeatInterval = options.heartbeatInterval ?? 41_250
  const bucket = options.bucket ?? { limit: 5, windowMs: 5_000 }
  const sessions = new Map<string, Session>()
  const connections: Array<Connection> = []
  const messages: Array<CreatedMessage> = []
  const nonces = new Map<string, CreatedMessage>()
  const windows = new Map<string, { count: number; resetAt: number }>()
  const interactions = new Map<string, { token: string; answered: boolean }>()
  const callbacks: Array<{ interactionId: string; body: any }> = []
  const dmChannels = new Map<string, string>()
  const requests: Array<{ method: string; path: string; status: number; at: number }> = []
  const identifies: Array<{ intents: number; token: string }> = []
  const resumes: Array<{ sessionId: string; seq: number | null }> = []
  const clientCloses: Array<number> = []
  const control = {
    acksPaused: false,
    forced429: 0,
    retryAfter: 0.2,
    lostResponses: 0,
    tokenRevoked: false,
    forced429From: 0,
  }
  const waiters: Array<(message: CreatedMessage) => void> = []
  let current: Connection | null = null
  let lastSession: Session | null = null

  const send = (connection: Connection, payload: unknown) => connection.socket.send(JSON.stringify(payload))
  const dispatch = (session: Session, t: string, d: unknown) => {
    session.seq += 1
    const event = { s: session.seq, t, d }
    session.events.push(event)
    if (session.socket !== null && session.socket.readyState === 1)
      session.socket.send(JSON.stringify({ op: 0, ...event }))
  }

  const onGatewayMessage = (connection: Connection, raw: string) => {
    let payload: any
    try {
      payload = JSON.parse(raw)
    } catch {
      return connection.socket.close(4002, "Error while decoding payload.")
    }
    switch (payload?.op) {
      case 1:
        connection.heartbeats.push({ at: Date.now() - connection.openedAt, d: payload.d })
        if (!control.acksPaused) send(connection, { op: 11 })
        return
      case 2: {
        if (connection.session !== null) return connection.socket.close(4005, "Already authenticated.")
        if (payload.d?.token !== token || control.tokenRevoked) {
          return connection.socket.close(4004, "Authentication failed.")
        }
        const intents = Number(payload.d?.intents)
        identifies.push({ intents, token: payload.d.token })
        if ((intents & (options.disallowedIntents ?? 0)) !== 0)
          return connection.socket.close(4014, "Disallowed intent(s).")
        const session: Session = { id: randomBytes(16).toString("hex"), events: [], seq: 0, valid: true, socket: null }
        sessions.set(session.id, session)
        connection.session = session
        session.socket = connection.socket
        lastSession = session
        const { port } = server.address() as AddressInfo
        dispatch(session, "READY", {
          v: 10,
          user: { id: botId, username: "aide-bot", bot: true },
          guilds: [],
          session_id: session.id,
          resume_gateway_url: `ws://127.0.0.1:${port}/resume`,
          application: { id: botId, flags: 0 },
        })
        return
      }
      case 6: {
        const session = sessions.get(String(payload.d?.session_id))
        resumes.push({ sessionId: String(payload.d?.session_id), seq: payload.d?.seq ?? null })
        if (payload.d?.token !== token) return connection.socket.close(4004, "Authentication failed.")
        if (session === undefined || !session.valid) return send(connection, { op: 9, d: false })
        connection.session = session
        session.socket = connection.socket
        lastSession = session
        const after = Number(payload.d?.seq ?? 0)
        for (const event of session.events) if (event.s > after) send(connection, { op: 0, ...event })
        dispatch(session, "RESUMED", {})
        return
      }
      default:
        if (connection.session === null) return connection.socket.close(4003, "Not authenticated.")
        return connection.socket.close(4001, "Unknown opcode.")
    }
  }

  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers })
    response.end(body === null ? undefined : JSON.stringify(body))
  }
  const readJson = async (request: IncomingMessage): Promise<any> => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    return text === "" ? null : JSON.parse(text)
  }
  const invalidForm = (response: ServerResponse, why: string) =>
    json(response, 400, { code: 50035, message: "Invalid Form Body", errors: { why } })

  const createMessage = async (request: IncomingMessage, response: ServerResponse, channelId: string) => {
    const now = Date.now()
    const window = windows.get(channelId)
    const open = window === undefined || window.resetAt <= now ? { count: 0, resetAt: now + bucket.windowMs } : window
    windows.set(channelId, open)
    const resetAfter = Math.max(0, (open.resetAt - now) / 1000)
    const limitHeaders = (remaining: number) => ({
      "x-ratelimit-limit": String(bucket.limit),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(open.resetAt / 1000),
      "x-ratelimit-reset-after": resetAfter.toFixed(3),
      "x-ratelimit-bucket": `channel-${channelId}`,
    })
    const forced = control.forced429 > 0 && messages.length >= control.forced429From
    if (forced || open.count >= bucket.limit) {
      const retryAfter = forced ? control.retryAfter : resetAfter
      if (forced) control.forced429 -= 1
      return json(
        response,
        429,
        { message: "You are being rate limited.", retry_after: retryAfter, global: false },
        { ...limitHeaders(0), "retry-after": String(Math.ceil(retryAfter)), "x-ratelimit-scope": "user" },
      )
    }
    const body = await readJson(request)
    const content = typeof body?.content === "string" ? body.content : ""
    const components = Array.isArray(body?.components) ? body.components : []
    if (content.length > 2000) return invalidForm(response, "content: Must be 2000 or fewer in length.")
    if (content === "" && components.length === 0)
      return json(response, 400, { code: 50006, message: "Cannot send an empty message" })
    for (const row of components) {
      if (row?.type !== 1 || !Array.isArray(row.components) || row.components.length > 5)
        return invalidForm(response, "action row")
      for (const button of row.components) {
        const id = String(button?.custom_id ?? "")
        if (button?.type !== 2 || id.length < 1 || id.length > 100 || String(button.label ?? "").length > 80) {
          return invalidForm(response, "button")
        }
      }
    }
    const nonce = body?.nonce === undefined ? undefined : String(body.nonce)
    if (nonce !== undefined && nonce.length > 25) return invalidForm(response, "nonce: Must be 25 or fewer in length.")
    open.count += 1
    const existing = nonce === undefined || body.enforce_nonce !== true ? undefined : nonces.get(nonce)
    if (existing !== undefined)
      return json(response, 200, { id: existing.id, channel_id: channelId }, limitHeaders(bucket.limit - open.count))
    const message: CreatedMessage = {
      id: snowflake(),
      channelId,
      content,
      components,
      nonce,
      allowedMentions: body?.allowed_mentions,
      createdAt: performance.now(),
    }
    messages.push(message)
    for (const waiter of waiters.splice(0)) waiter(message)
    if (nonce !== undefined) nonces.set(nonce, message)
    if (lastSession !== null) {
      dispatch(lastSession, "MESSAGE_CREATE", {
        id: message.id,
        channel_id: channelId,
        author: { id: botId, username: "aide-bot", bot: true },
        content,
        type: 0,
        mentions: [],
      })
    }
    if (control.lostResponses > 0) {
      // Made, but the answer is lost on the way: the client cannot know, and tries again.
      control.lostResponses -= 1
      return json(response, 502, { message: "Bad Gateway" })
    }
    json(response, 200, { id: message.id, channel_id: channelId, content }, limitHeaders(bucket.limit - open.count))
  }

  const onRequest = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "").split("?")[0] ?? ""
    const method = request.method ?? "GET"
    response.on("finish", () => requests.push({ method, path, status: response.statusCode, at: Date.now() }))
    if (request.headers.authorization !== `Bot ${token}`)
      return json(response, 401, { message: "401: Unauthorized", code: 0 })
    const { port } = server.address() as AddressInfo
    const messagesPath = /^\/api\/v10\/channels\/(\d+)\/messages$/.exec(path)
    const callbackPath = /^\/api\/v10\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path)
    if (method === "GET" && path === "/api/v10/gateway/bot") {
      return json(response, 200, {
        url: `ws://127.0.0.1:${port}/gateway`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
      })
    }
    if (method === "POST" && messagesPath !== null) {
      return createMessage(request, response, messagesPath[1]!)
    }
    if (method === "POST" && path === "/api/v10/users/@me/channels") {
      const body = await readJson(request)
      const recipient = String(body?.recipient_id ?? "")
      if (!/^\d+$/.test(recipient)) return invalidForm(response, "recipient_id")
      const id = dmChannels.get(recipient) ?? options.dmChannelOf?.(recipient) ?? snowflake()
      dmChannels.set(recipient, id)
      return json(response, 200, { id, type: 1, recipients: [{ id: recipient }] })
    }
    if (method === "POST" && callbackPath !== null) {
      const match = callbackPath
      const interaction = interactions.get(match[1]!)
      if (interaction === undefined || interaction.token !== decodeURIComponent(match[2]!)) {
        return json(response, 404, { code: 10062, message: "Unknown interaction" })
      }
      if (interaction.answered)
        return json(response, 400, { code: 40060, message: "Interaction has already been acknowledged." })
      interaction.answered = true
      callbacks.push({ interactionId: match[1]!, body: await readJson(request) })
      response.writeHead(204).end()
      return
    }
    json(response, 404, { code: 0, message: "404: Not Found" })
  }

  const server = createServer((request, response) => {
    onRequest(request, response).catch(() => json(response, 500, { message: "fake failed" }))
  })
  const wss = new WebSocketServer({ server })
  wss.on("connection", (socket, request) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const connection: Connection = { socket, path: url.pathname, openedAt: Date.now(), session: null, heartbeats: [] }
    connections.push(connection)
    current = connection
    if (url.searchParams.get("v") !== "10" || url.searchParams.get("encoding") !== "json") {
      socket.close(4012, "Invalid API version.")
      return
    }
    socket.on("message", (data) => onGatewayMessage(connection, data.toString()))
    socket.on("close", (code) => {
      clientCloses.push(code)
      // A client closing with 1000/1001 ends its session (discord-api-docs gateway.mdx).
      if ((code === 1000 || code === 1001) && connection.session !== null) connection.session.valid = false
      if (connection.session?.socket === socket) connection.session.socket = null
      if (current === connection) current = null
    })
    send(connection, { op: 10, d: { heartbeat_interval: heartbeatInterval } })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  const liveSession = () => {
    if (lastSession === null) throw new Error("fake discord: no session yet")
    return lastSession
  }

  return {
    token,
    botId,
    apiBase: `http://127.0.0.1:${port}/api/v10`,
    messages,
    callbacks,
    requests,
    identifies,
    resumes,
    clientCloses,
    connections,
    control,
    dmChannel: (userId: string) => dmChannels.get(userId),
    /** The next message the bot creates. */
    nextMessage: () => new Promise<CreatedMessage>((resolve) => waiters.push(resolve)),
    /** Whether a client is connected and identified or resumed. */
    ready: () => current !== null && current.session !== null && current.session.socket === current.socket,
    /** A user writes: MESSAGE_CREATE on the session (delivered now, or replayed on resume). */
    userMessage: (input: {
      authorId: string
      channelId: string
      content: string
      guildId?: string
      mentionsBot?: boolean
      username?: string
    }) => {
      const id = snowflake()
      dispatch(liveSession(), "MESSAGE_CREATE", {
        id,
        channel_id: input.channelId,
        author: {
          id: input.authorId,
          username: input.username ?? `user${input.authorId.slice(-4)}`,
          global_name: null,
        },
        content: input.content,
        type: 0,
        timestamp: new Date().toISOString(),
        mentions: input.mentionsBot === true ? [{ id: botId, username: "aide-bot", bot: true }] : [],
        ...(input.guildId === undefined ? { channel_type: 1 } : { guild_id: input.guildId, channel_type: 0 }),
      })
      return id
    },
    /** A user clicks a button: INTERACTION_CREATE (type 3, MESSAGE_COMPONENT). */
    click: (input: { userId: string; channelId: string; customId: string; messageId?: string; guildId?: string }) => {
      const id = snowflake()
      const interactionToken = randomBytes(24).toString("base64url")
      interactions.set(id, { token: interactionToken, answered: false })
      const message = messages.find((candidate) => candidate.id === input.messageId)
      const user = { id: input.userId, username: `user${input.userId.slice(-4)}` }
      dispatch(liveSession(), "INTERACTION_CREATE", {
        id,
        application_id: botId,
        type: 3,
        token: interactionToken,
        version: 1,
        channel_id: input.channelId,
        data: { custom_id: input.customId, component_type: 2 },
        message: { id: input.messageId ?? snowflake(), channel_id: input.channelId, content: message?.content ?? "" },
        ...(input.guildId === undefined ? { user } : { guild_id: input.guildId, member: { user } }),
      })
      return id
    },
    /** The TCP connection dies without a close frame (the client sees 1006). */
    dropConnection: () => current?.socket.terminate(),
    reconnect: () => current !== null && send(current, { op: 7, d: null }),
    invalidSession: (resumable: boolean) => {
      if (current === null) return
      if (!resumable && current.session !== null) current.session.valid = false
      send(current, { op: 9, d: resumable })
    },
    closeWith: (code: number, reason = "") => current?.socket.close(code, reason),
    close: async () => {
      if (!server.listening) return
      for (const client of wss.clients) client.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeDiscord = Awaited<ReturnType<typeof startFakeDiscord>>

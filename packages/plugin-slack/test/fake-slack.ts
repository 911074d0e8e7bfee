/**
 * A fake of the parts of Slack the channel uses, on loopback, following Slack's documented
 * shapes (see /work/shared/research/channels.md §1):
 * - Web API: form-encoded POSTs with `Authorization: Bearer`, answers `{ ok, … }` (errors as 200
 *   `ok: false`), 429 with `Retry-After` when told to; `auth.test`, `apps.connections.open` (an
 *   app-level token only, single-use ticket URLs), `chat.postMessage` (keeps `metadata`),
 *   `chat.update`, `conversations.open`, `conversations.history` / `conversations.replies` (with
 *   `include_all_metadata`).
 * - Socket Mode: `hello` first; `events_api` / `interactive` envelopes with `envelope_id`, which
 *   the client must ack (`{ envelope_id }`) within `ackTimeoutMs`, else redelivered with
 *   `retry_attempt` + `retry_reason: "timeout"`; `disconnect` (`refresh_requested`).
 * - Events API: deliveries signed `v0=HMAC(signing secret, "v0:<ts>:<body>")` with
 *   `X-Slack-Request-Timestamp`, retries with `X-Slack-Retry-Num` / `X-Slack-Retry-Reason`.
 */
import { createHmac, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocket, WebSocketServer } from "ws"

/** A client socket for a test's `context.webSocket` (`ws`'s is WHATWG-style, as the context's is). */
export const connectWebSocket = (url: string) => new WebSocket(url)

export interface Posted {
  readonly channel: string
  readonly ts: string
  readonly text: string
  readonly thread_ts?: string
  readonly blocks?: any[]
  readonly metadata?: any
}

type Failure = { readonly status: 429; readonly retryAfter: number } | { readonly kind: "drop-after-post" | "500" }

export interface FakeSlack {
  readonly apiRoot: string
  readonly botToken: string
  readonly appToken: string
  readonly signingSecret: string
  readonly botUserId: string
  readonly posted: Posted[]
  readonly updates: Array<Record<string, string>>
  readonly calls: Array<{ method: string; args: Record<string, string> }>
  /** Envelopes the client acked, by envelope id. */
  readonly acked: Set<string>
  /** Sockets open now. */
  readonly openSockets: () => number
  /** Connections accepted so far (each one got `hello`). */
  readonly connections: () => number
  /** The next call of `method` (after `after` more that pass) fails this way. */
  failNext(method: string, failure: Failure, after?: number): void
  /** Sends an `events_api` envelope for `event`; returns its envelope id. `retries` forces redeliveries. */
  pushEvent(event: Record<string, unknown>, options?: { retries?: number }): string
  /** Slack's redelivery of the last `pushEvent`: a new envelope, the same event, `retry_attempt: 1`. */
  redeliverLastEvent(): void
  /** Sends an `interactive` envelope (a `block_actions` payload). */
  pushInteraction(payload: Record<string, unknown>): string
  /** Asks every open socket to reconnect (`disconnect`, `refresh_requested`). */
  refresh(): void
  /** Drops every open socket without a close frame. */
  drop(): void
  /** Delivers `event` to an Events API URL, signed, as Slack would (and its retries). */
  deliver(
    url: string,
    body: string,
    options?: { retryNum?: number; retryReason?: string; timestamp?: number; contentType?: string },
  ): Promise<{ status: number; text: string }>
  /** An `event_callback` body for `event` (the Events API's POST body, the envelope's payload). */
  eventCallback(event: Record<string, unknown>, eventId?: string): Record<string, unknown>
  close(): Promise<void>
}

const json = (response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
  response.end(JSON.stringify(value))
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    request.on("error", reject)
  })

export const startFakeSlack = async (options: { ackTimeoutMs?: number } = {}): Promise<FakeSlack> => {
  const ackTimeoutMs = options.ackTimeoutMs ?? 3000
  const botToken = "xoxb-fake-bot"
  const appToken = "xapp-fake-app"
  const signingSecret = "fake-signing-secret"
  const botUserId = "UBOT"
  const posted: Posted[] = []
  const updates: Array<Record<string, string>> = []
  const calls: Array<{ method: string; args: Record<string, string> }> = []
  const acked = new Set<string>()
  const failures = new Map<string, Array<Failure | null>>()
  const tickets = new Set<string>()
  const sockets = new Set<WebSocket>()
  const timers = new Set<NodeJS.Timeout>()
  let connections = 0
  // Slack's ts: Unix seconds, a dot, a sequence number (unique per channel).
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(posted.length + 1).padStart(6, "0")}`

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const method = url.pathname.replace(/^\/api\//, "")
    const args = Object.fromEntries(new URLSearchParams(await readBody(request)))
    calls.push({ method, args })
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "")
    const failure = failures.get(method)?.shift() ?? undefined
    if (failure !== undefined && failure !== null && "status" in failure) {
      return json(response, 429, { ok: false, error: "ratelimited" }, { "retry-after": String(failure.retryAfter) })
    }
    if (failure?.kind === "500") return json(response, 500, { ok: false, error: "fatal_error" })
    if (method === "apps.connections.open") {
      if (token !== appToken)
        return json(response, 200, {
          ok: false,
          error: token.startsWith("xoxb") ? "not_allowed_token_type" : "invalid_auth",
        })
      const ticket = randomUUID()
      tickets.add(ticket)
      const address = server.address() as AddressInfo
      return json(response, 200, { ok: true, url: `ws://127.0.0.1:${address.port}/link/?ticket=${ticket}&app_id=A1` })
    }
    if (token !== botToken) return json(response, 200, { ok: false, error: "invalid_auth" })
    switch (method) {
      case "auth.test":
        return json(response, 200, { ok: true, user_id: botUserId, bot_id: "B1", team_id: "T1", user: "aide" })
      case "chat.postMessage": {
        if (args.channel === undefined || args.channel === "")
          return json(response, 200, { ok: false, error: "channel_not_found" })
        const message: Posted = {
          channel: args.channel,
          ts: nextTs(),
          text: args.text ?? "",
          ...(args.thread_ts === undefined ? {} : { thread_ts: args.thread_ts }),
          ...(args.blocks === undefined ? {} : { blocks: JSON.parse(args.blocks) }),
          ...(args.metadata === undefined ? {} : { metadata: JSON.parse(args.metadata) }),
        }
        posted.push(message)
        // Posted, but the answer never arrives: the client cannot know.
        if (failure?.kind === "drop-after-post") return request.socket.destroy()
        return json(response, 200, { ok: true, channel: message.channel, ts: message.ts, message })
      }
      case "chat.update":
        updates.push(args)
        return json(response, 200, { ok: true, channel: args.channel, ts: args.ts })
      case "conversations.open":
        return json(response, 200, { ok: true, channel: { id: `D${String(args.users).slice(1)}` } })
      case "conversations.history":
      case "conversations.replies": {
        const withMetadata = args.include_all_metadata === "true"
        const messages = posted
          .filter((message) => message.channel === args.channel)
          .filter((message) => method === "conversations.history" || message.thread_ts === args.ts)
          .filter((message) => Number(message.ts) >= Number(args.oldest ?? 0))
          .map(({ metadata, ...message }) =>
            withMetadata && metadata !== undefined ? { ...message, metadata } : message,
          )
        return json(response, 200, { ok: true, messages })
      }
      default:
        return json(response, 200, { ok: false, error: "unknown_method" })
    }
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on("upgrade", (request, socket, head) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const ticket = url.searchParams.get("ticket") ?? ""
    // Tickets are single use, as Slack's are.
    if (url.pathname !== "/link/" || !tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n")
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connections++
      sockets.add(ws)
      ws.on("close", () => sockets.delete(ws))
      ws.on("message", (data) => {
        try {
          const frame = JSON.parse(String(data))
          if (typeof frame.envelope_id === "string") acked.add(frame.envelope_id)
        } catch {
          // not ours to judge
        }
      })
      ws.send(
        JSON.stringify({
          type: "hello",
          num_connections: sockets.size,
          debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
          connection_info: { app_id: "A1" },
        }),
      )
      flushQueue()
    })
  })

  /** Envelopes waiting for a socket (Slack retries while the app is not connected). */
  const queue: Array<Record<string, unknown>> = []
  const flushQueue = () => {
    while (queue.length > 0 && sockets.size > 0) send(queue.shift()!)
  }
  const send = (envelope: Record<string, unknown>) => {
    const socket = [...sockets].at(-1)
    if (socket === undefined) {
      queue.push(envelope)
      return
    }
    socket.send(JSON.stringify(envelope))
  }
  let lastEvent: Record<string, unknown> | undefined
  const envelope = (type: string, payload: Record<string, unknown>, forced: number) => {
    if (type === "events_api") lastEvent = payload
    const id = randomUUID()
    const deliver = (attempt: number) => {
      const base = { envelope_id: id, type, payload, accepts_response_payload: false }
      send(attempt === 0 ? base : { ...base, retry_attempt: attempt, retry_reason: "timeout" })
      if (attempt >= 3) return
      const timer = setTimeout(
        () => {
          timers.delete(timer)
          if (attempt < forced || !acked.has(id)) deliver(attempt + 1)
        },
        attempt < forced ? 10 : ackTimeoutMs,
      )
      timers.add(timer)
    }
    deliver(0)
    return id
  }

  const eventCallback = (event: Record<string, unknown>, eventId = `Ev${randomUUID().slice(0, 8)}`) => ({
    token: "verification-token",
    team_id: "T1",
    api_app_id: "A1",
    event: { event_ts: event.ts, ...event },
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: "T1", user_id: botUserId, is_bot: true }],
  })

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as AddressInfo

  return {
    apiRoot: `http://127.0.0.1:${address.port}/api`,
    botToken,
    appToken,
    signingSecret,
    botUserId,
    posted,
    updates,
    calls,
    acked,
    openSockets: () => sockets.size,
    connections: () => connections,
    failNext: (method, failure, after = 0) =>
      failures.set(method, [...(failures.get(method) ?? []), ...Array<null>(after).fill(null), failure]),
    pushEvent: (event, pushOptions = {}) => envelope("events_api", eventCallback(event), pushOptions.retries ?? 0),
    pushInteraction: (payload) => envelope("interactive", payload, 0),
    redeliverLastEvent: () => {
      if (lastEvent === undefined) throw new Error("no event to redeliver")
      send({
        envelope_id: randomUUID(),
        type: "events_api",
        payload: lastEvent,
        accepts_response_payload: false,
        retry_attempt: 1,
        retry_reason: "timeout",
      })
    },
    refresh: () => {
      for (const socket of sockets) {
        socket.send(
          JSON.stringify({ type: "disconnect", reason: "refresh_requested", debug_info: { host: "fake-slack" } }),
        )
      }
    },
    drop: () => {
      for (const socket of sockets) socket.terminate()
    },
    deliver: async (url, body, deliverOptions = {}) => {
      const timestamp = String(deliverOptions.timestamp ?? Math.floor(Date.now() / 1000))
      const signature = createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex")
      const headers: Record<string, string> = {
        "content-type": deliverOptions.contentType ?? "application/json",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": `v0=${signature}`,
      }
      if (deliverOptions.retryNum !== undefined) {
        headers["x-slack-retry-num"] = String(deliverOptions.retryNum)
        headers["x-slack-retry-reason"] = deliverOptions.retryReason ?? "http_timeout"
      }
      const response = await fetch(url, { method: "POST", headers, body })
      return { status: response.status, text: await response.text() }
    },
    eventCallback,
    close: async () => {
      for (const timer of timers) clearTimeout(timer)
      for (const socket of sockets) socket.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

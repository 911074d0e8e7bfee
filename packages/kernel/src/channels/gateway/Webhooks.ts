import { createHash, timingSafeEqual } from "node:crypto"
import { Clock, Duration, Effect } from "effect"
import type { RateLimit, RateLimiter } from "../../ratelimit/RateLimiter.js"
import type { WebhookResponse } from "./ChannelContract.js"
import { type ChannelEndpoint, channelKey } from "./ChannelEndpoint.js"
import { causeMessage } from "./internal/causeMessage.js"
import type { WebhookReplays } from "./WebhookReplays.js"
import { check } from "./WebhookVerifier.js"

/** A request to a webhook route, as the server read it. */
export interface IncomingWebhook {
  readonly method: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The client's rate-limit bucket (its address; the server's `rateLimitBucket`). */
  readonly clientAddress: string
}

/** A `GET` to a webhook route: the subscription handshake (`subscribe` verifications only). */
export interface IncomingChallenge {
  /** The query's parameters (the first value of each). */
  readonly query: Readonly<Record<string, string>>
  readonly clientAddress: string
}

/** The gateway's `webhookChallenge`: a GET to `/wh/<pluginId>/<channelId>`. */
export type ChallengeRoute = (
  pluginId: string,
  channelId: string,
  request: IncomingChallenge,
) => Effect.Effect<WebhookAnswer>

/** The HTTP answer to give. */
export interface WebhookAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface WebhookOptions {
  /** Requests per client address to all webhook routes; default 60 a minute. */
  readonly rateLimit?: RateLimit
  /** Largest body in bytes; default 1 MiB (413 above). */
  readonly maxBodyBytes?: number
  /** Longest wait for the channel's handler; default 30 seconds (502 after). */
  readonly timeout?: Duration.DurationInput
}

export const webhookDefaults = {
  rateLimit: { limit: 60, window: Duration.minutes(1) },
  maxBodyBytes: 1024 * 1024,
  timeout: Duration.seconds(30),
} as const

const json = (status: number, value: unknown, headers: Record<string, string> = {}): WebhookAnswer => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(value),
})

/** Headers the HTTP layer owns; a channel's are dropped. */
const reservedHeaders = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade"])

/** The channel's answer as given, within what HTTP allows (a status outside 200–599 is 200). */
const passThrough = (response: WebhookResponse | null | undefined): WebhookAnswer => {
  if (response === null || response === undefined) return json(200, { ok: true })
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    if (!reservedHeaders.has(name.toLowerCase())) headers[name.toLowerCase()] = String(value)
  }
  const body = response.body ?? ""
  if (body !== "" && headers["content-type"] === undefined) headers["content-type"] = "text/plain; charset=utf-8"
  const status = Number.isInteger(response.status) && response.status! >= 200 && response.status! <= 599
  return { status: status ? response.status! : 200, headers, body }
}

/**
 * The webhook route's logic: the client's budget first (so unknown routes cost the same), then the
 * size, the endpoint (404), the verification (401, before the channel sees anything: a wrong
 * signature, a missing or stale timestamp), replays (409: an HMAC signature already accepted
 * within its window, in `replays`, shared by the replicas; 503 when that store fails, so the
 * sender retries) and the channel's handler (its answer, or 502). Bodies and secrets are never
 * logged.
 */
export const make = (limiter: RateLimiter["Type"], replays: WebhookReplays["Type"], options: WebhookOptions = {}) => {
  const rateLimit = options.rateLimit ?? webhookDefaults.rateLimit
  const maxBodyBytes = options.maxBodyBytes ?? webhookDefaults.maxBodyBytes
  const timeout = options.timeout ?? webhookDefaults.timeout

  const serve = (endpoint: ChannelEndpoint | undefined, request: IncomingWebhook): Effect.Effect<WebhookAnswer> =>
    Effect.gen(function* () {
      const decision = yield* limiter.consume(`webhook ${request.clientAddress}`, rateLimit)
      if (!decision.allowed) {
        const retryAfter = String(Math.max(1, Math.ceil(Duration.toSeconds(decision.resetAfter))))
        return json(429, { error: "too_many_requests" }, { "retry-after": retryAfter })
      }
      if (Buffer.byteLength(request.body, "utf8") > maxBodyBytes) {
        return json(413, { error: `request body too large (limit ${maxBodyBytes} bytes)` })
      }
      const webhook = endpoint?.webhook
      if (endpoint === undefined || webhook === null || webhook === undefined) return json(404, { error: "Not found" })
      const key = channelKey(endpoint.pluginId, endpoint.channelId)
      const secret = yield* webhook.secret
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const verdict = check(webhook.verification, secret, request.headers, request.body, nowSeconds)
      if (!verdict.ok) {
        if (secret === undefined || secret === "") {
          yield* Effect.logWarning("channels: webhook refused: its secret is not set").pipe(
            Effect.annotateLogs({ channel: key }),
          )
        }
        return json(401, { error: verdict.reason })
      }
      const replay = verdict.replay
      if (replay !== undefined) {
        // Only a verified signature gets here: without the secret nothing is written.
        const fresh = yield* Effect.either(
          replays.remember({ channel: key, signature: replay.key, until: replay.until }, nowSeconds),
        )
        if (fresh._tag === "Left") {
          yield* Effect.logWarning("channels: webhook refused: its replay check failed").pipe(
            Effect.annotateLogs({ channel: key, error: fresh.left.message }),
          )
          return json(503, { error: "unavailable" }, { "retry-after": "5" })
        }
        if (!fresh.right) {
          yield* Effect.logWarning("channels: webhook refused: a replay of an accepted request").pipe(
            Effect.annotateLogs({ channel: key }),
          )
          return json(409, { error: "replayed" })
        }
      }
      const handled = yield* Effect.suspend(() =>
        webhook.handle({ method: request.method, headers: request.headers, body: request.body }),
      ).pipe(
        Effect.timeoutFail({ duration: timeout, onTimeout: () => "no answer in time" as const }),
        Effect.sandbox,
        Effect.either,
      )
      if (handled._tag === "Left") {
        // Not handled: the sender may retry the same request.
        if (replay !== undefined) yield* Effect.ignoreLogged(replays.forget(key, replay.key))
        yield* Effect.logWarning("channels: webhook handler failed").pipe(
          Effect.annotateLogs({ channel: key, error: causeMessage(handled.left) }),
        )
        return json(502, { error: "the channel failed to handle the request" })
      }
      return passThrough(handled.right)
    })

  /**
   * Meta's subscription handshake: `hub.mode=subscribe` and `hub.verify_token` equal to the
   * declared secret (SHA-256 digests compared in constant time) answer `hub.challenge` as text;
   * anything else is 403, an endpoint without `subscribe` 404. Rate-limited like POSTs.
   */
  const challenge = (endpoint: ChannelEndpoint | undefined, request: IncomingChallenge): Effect.Effect<WebhookAnswer> =>
    Effect.gen(function* () {
      const decision = yield* limiter.consume(`webhook ${request.clientAddress}`, rateLimit)
      if (!decision.allowed) {
        const retryAfter = String(Math.max(1, Math.ceil(Duration.toSeconds(decision.resetAfter))))
        return json(429, { error: "too_many_requests" }, { "retry-after": retryAfter })
      }
      const verifyToken = endpoint?.webhook?.verifyToken
      if (verifyToken === undefined) return json(404, { error: "Not found" })
      const secret = yield* verifyToken
      const sent = request.query["hub.verify_token"]
      const answer = request.query["hub.challenge"] ?? ""
      const matches =
        secret !== undefined &&
        secret !== "" &&
        sent !== undefined &&
        timingSafeEqual(createHash("sha256").update(sent).digest(), createHash("sha256").update(secret).digest())
      // The challenge is echoed as the body: bounded and plain (Meta's are digits).
      if (request.query["hub.mode"] !== "subscribe" || !matches || !/^[\w.-]{1,200}$/.test(answer)) {
        return json(403, { error: "forbidden" })
      }
      return { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: answer }
    })

  return { serve, challenge } as const
}

import { createHash, timingSafeEqual } from "node:crypto"
import { Auth, RateLimiter } from "@aide/kernel"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option, Redacted } from "effect"
import { clientAddress, rateLimitBucket, type TrustProxy } from "./ClientAddress.js"

const bearer = /^bearer (.+)$/i

/** Digests first: `timingSafeEqual` wants equal lengths, and the secret's length stays unknown. */
const digest = (value: string) => createHash("sha256").update(value).digest()

/** True when `token` is `secret`, in time independent of where they differ. */
export const sameSecret = (token: string, secret: Redacted.Redacted<string>) =>
  timingSafeEqual(digest(token), digest(Redacted.value(secret)))

/** Shortest `AIDE_METRICS_TOKEN` or `AIDE_CRON_SECRET`, as for `AIDE_JWT_SECRET`: 256 bits. */
export const minimumSecretBytes = 32

/** Why `secret`, named `name`, cannot guard a route (too short to resist guessing), or undefined. */
export const secretProblem = (name: string, secret: Option.Option<Redacted.Redacted<string>> | undefined) =>
  secret !== undefined &&
  Option.isSome(secret) &&
  Buffer.byteLength(Redacted.value(secret.value), "utf8") < minimumSecretBytes
    ? `${name} must be at least ${minimumSecretBytes} bytes (e.g. \`openssl rand -hex 32\`), or unset`
    : undefined

/** The 401 of the protected API, the same body. */
export const unauthorized = HttpServerResponse.unsafeJson({ error: "unauthorized" }, { status: 401 })

/**
 * Wrong Bearers one client (IPv4 address or IPv6 /64) may send one route per window: a scraper
 * or cron with the right one never spends it, a guesser gets 429 after ten a minute.
 */
export const failureLimit: RateLimiter.RateLimit = { limit: 10, window: Duration.minutes(1) }

const tooManyRequests = (decision: RateLimiter.RateLimitDecision) => {
  const seconds = String(Math.max(1, Math.ceil(Duration.toSeconds(decision.resetAfter))))
  return HttpServerResponse.unsafeJson(
    { error: "too_many_requests" },
    {
      status: 429,
      headers: {
        "retry-after": seconds,
        "cache-control": "no-store",
        "x-ratelimit-limit": String(decision.limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": seconds,
      },
    },
  )
}

export interface GateOptions {
  /** The route's path: its failures have their own budget. */
  readonly route: string
  /** The route's dedicated secret (`AIDE_CRON_SECRET`, `AIDE_METRICS_TOKEN`), when configured. */
  readonly secret: Option.Option<Redacted.Redacted<string>>
  readonly trustProxy: TrustProxy
}

/**
 * Routes outside the HttpApi that machines call (a platform's cron, a metrics scraper): the
 * Bearer is either the dedicated secret (when configured) or a valid owner's access token, so
 * the owner can try them by hand and an operator need not hand out an owner's session. Each
 * refused Bearer (or none) spends the client's `failureLimit`; once it is spent, every request
 * of that client gets 429 until the window ends, the right Bearer too, as a login with the right
 * password does: were the right one let through, a 200 among the 429s would tell a guesser it won.
 */
export const make = (options: GateOptions) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const limiter = yield* RateLimiter.RateLimiter
    const valid = (authorization: string | undefined) => {
      const token = bearer.exec(authorization ?? "")?.[1]
      if (token === undefined) return Effect.succeed(false)
      if (Option.isSome(options.secret) && sameSecret(token, options.secret.value)) return Effect.succeed(true)
      return auth.authenticate(token).pipe(
        Effect.as(true),
        Effect.catchTag("Unauthenticated", () => Effect.succeed(false)),
        Effect.orDie,
      )
    }
    return <E, R>(handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const key = `${options.route} failures ${rateLimitBucket(clientAddress(request, options.trustProxy))}`
        return Effect.flatMap(limiter.peek(key, failureLimit), (budget) =>
          budget.allowed
            ? Effect.flatMap(valid(request.headers.authorization), (ok) =>
                ok
                  ? handle
                  : Effect.map(limiter.consume(key, failureLimit), (spent) =>
                      spent.allowed ? unauthorized : tooManyRequests(spent),
                    ),
              )
            : Effect.succeed(tooManyRequests(budget)),
        )
      })
  })

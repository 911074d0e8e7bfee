import { RateLimiter } from "@aide/kernel"
import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Duration, Effect, Layer, Option } from "effect"
import { TooManyRequests } from "../api/ApiErrors.js"
import { RateLimited } from "../api/Security.js"
import { clientAddress, rateLimitBucket, type TrustProxy } from "./ClientAddress.js"

/** SPEC "Limits": per client IP, per minute. */
export const specLimits: Readonly<Record<string, RateLimiter.RateLimit>> = {
  "/api/auth/setup": { limit: 3, window: Duration.minutes(1) },
  "/api/auth/login": { limit: 5, window: Duration.minutes(1) },
  "/api/auth/refresh": { limit: 10, window: Duration.minutes(1) },
  "/api/auth/change-password": { limit: 3, window: Duration.minutes(1) },
}

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/**
 * Counts the request against its route's limit for the client's bucket (its IPv4 address or
 * IPv6 /64, see `rateLimitBucket`). Headers go on every
 * response of a limited route, success or error; a request over the limit gets 429.
 */
export const layer = (options: {
  readonly trustProxy: TrustProxy
  readonly limits?: Readonly<Record<string, RateLimiter.RateLimit>>
}) =>
  Layer.effect(
    RateLimited,
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.RateLimiter
      const limits = options.limits ?? specLimits
      const limited = (request: HttpServerRequest.HttpServerRequest, path: string, limit: RateLimiter.RateLimit) =>
        Effect.gen(function* () {
          const bucket = rateLimitBucket(clientAddress(request, options.trustProxy))
          const decision = yield* limiter.consume(`${path} ${bucket}`, limit)
          const resetSeconds = Math.max(1, Math.ceil(Duration.toSeconds(decision.resetAfter)))
          const headers: Record<string, string> = {
            "x-ratelimit-limit": String(decision.limit),
            "x-ratelimit-remaining": String(decision.remaining),
            "x-ratelimit-reset": String(resetSeconds),
          }
          if (!decision.allowed) {
            headers["retry-after"] = String(resetSeconds)
            headers["cache-control"] = "no-store"
          }
          yield* HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.setHeaders(response, headers)),
          )
          if (!decision.allowed) return yield* new TooManyRequests({ error: "too_many_requests" })
        })
      // On every request of the routes it guards (sessions, logout…), most of them unlimited:
      // plain combinators until a limit applies.
      return Effect.contextWithEffect((context: Context.Context<HttpServerRequest.HttpServerRequest>) => {
        const request = Context.get(context, HttpServerRequest.HttpServerRequest)
        const route = Context.getOption(context, HttpRouter.RouteContext)
        // The matched route, not the raw URL: the router also accepts `/api/auth/login/`,
        // `//api/auth/login`, `/API/auth/login` or `/api/auth/%6Cogin`, which must share a budget.
        const path = Option.isSome(route) ? route.value.route.path : pathOf(request.url)
        const limit = Object.hasOwn(limits, path) ? limits[path] : undefined
        return limit === undefined ? Effect.void : limited(request, path, limit)
      })
    }),
  )

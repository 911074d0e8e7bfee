import type { AuthModel } from "@aide/kernel"
import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { TooManyRequests, Unauthorized } from "./ApiErrors.js"

/**
 * The principal `Authentication` verified, by request (its underlying message, which outlives
 * any copy of the request a router makes). Not a service the middleware `provides`: providing
 * one copies the request fiber's whole context and opens a region to restore it, on every
 * protected request, for the few handlers that read it.
 */
const principals = new WeakMap<object, AuthModel.Principal>()

/** Called by `Authentication` once the Bearer token is verified. */
export const rememberSession = (request: HttpServerRequest.HttpServerRequest, principal: AuthModel.Principal) => {
  principals.set(request.source as object, principal)
}

/**
 * The verified caller of a protected endpoint (behind `Authentication`). Read elsewhere, it is a
 * defect: a handler outside the protected groups has no caller.
 */
export const CurrentSession: Effect.Effect<AuthModel.Principal, never, HttpServerRequest.HttpServerRequest> =
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const principal = principals.get(request.source as object)
    return principal === undefined
      ? Effect.dieMessage("CurrentSession read on a request Authentication did not verify")
      : Effect.succeed(principal)
  })

/** Bearer access token on every protected endpoint: 401 `unauthorized` otherwise. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Unauthorized.Wire,
  security: { bearer: HttpApiSecurity.bearer },
}) {}

/** Per-client-IP limits of SPEC "Limits"; adds the X-RateLimit-* headers. */
export class RateLimited extends HttpApiMiddleware.Tag<RateLimited>()("RateLimited", {
  failure: TooManyRequests.Wire,
}) {}

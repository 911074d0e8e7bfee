import type { AuthModel } from "@aide/kernel"
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context } from "effect"
import { TooManyRequests, Unauthorized } from "./ApiErrors.js"

/** The verified caller of a protected endpoint. */
export class CurrentSession extends Context.Tag("@aide/server/CurrentSession")<CurrentSession, AuthModel.Principal>() {}

/** Bearer access token on every protected endpoint: 401 `unauthorized` otherwise. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Unauthorized.Wire,
  provides: CurrentSession,
  security: { bearer: HttpApiSecurity.bearer },
}) {}

/** Per-client-IP limits of SPEC "Limits"; adds the X-RateLimit-* headers. */
export class RateLimited extends HttpApiMiddleware.Tag<RateLimited>()("RateLimited", {
  failure: TooManyRequests.Wire,
}) {}

import { Auth } from "@aide/kernel"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { Unauthorized } from "../api/ApiErrors.js"
import { Authentication, rememberSession } from "../api/Security.js"

const bearerPrefix = /^bearer /i

/**
 * Checks the Bearer token of every protected endpoint: a verified JWT whose session is still
 * active. Verified tokens are cached by `AccessTokens`, sessions by `Auth`, and revocation
 * evicts at once, so a revoked session's token fails on its very next request.
 */
export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    return {
      // On every protected request: plain combinators, no generator.
      bearer: (token) =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const value = Redacted.value(token)
          if (value === "" || !bearerPrefix.test(request.headers.authorization ?? "")) {
            return Effect.fail(Unauthorized.unauthorized)
          }
          // Only a storage failure is a defect; `orDie` after the catch would turn every 401 into a 500.
          // One frame for both outcomes (each handler is a frame on every request).
          return Effect.matchEffect(auth.authenticate(value), {
            onFailure: (error) => (error._tag === "Unauthenticated" ? Unauthorized.unauthorized : Effect.die(error)),
            onSuccess: (principal) => {
              rememberSession(request, principal)
              return Effect.void
            },
          })
        }),
    }
  }),
)

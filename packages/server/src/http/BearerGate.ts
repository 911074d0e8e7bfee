import { createHash, timingSafeEqual } from "node:crypto"
import { Auth } from "@aide/kernel"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Redacted } from "effect"

const bearer = /^bearer (.+)$/i

/** Digests first: `timingSafeEqual` wants equal lengths, and the secret's length stays unknown. */
const digest = (value: string) => createHash("sha256").update(value).digest()

/** True when `token` is `secret`, in time independent of where they differ. */
export const sameSecret = (token: string, secret: Redacted.Redacted<string>) =>
  timingSafeEqual(digest(token), digest(Redacted.value(secret)))

/** The 401 of the protected API, the same body. */
export const unauthorized = HttpServerResponse.unsafeJson({ error: "unauthorized" }, { status: 401 })

/**
 * Routes outside the HttpApi that machines call (a platform's cron, a metrics scraper): the
 * Bearer is either the dedicated secret (when configured) or a valid owner's access token, so
 * the owner can try them by hand and an operator need not hand out an owner's session.
 */
export const authorized = (auth: Auth.Auth["Type"], secret: Option.Option<Redacted.Redacted<string>>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const token = bearer.exec(request.headers.authorization ?? "")?.[1]
    if (token === undefined) return Effect.succeed(false)
    if (Option.isSome(secret) && sameSecret(token, secret.value)) return Effect.succeed(true)
    return auth.authenticate(token).pipe(
      Effect.as(true),
      Effect.catchTag("Unauthenticated", () => Effect.succeed(false)),
      Effect.orDie,
    )
  })

import { Clock, Context, Data, Duration, Effect, Layer, Redacted } from "effect"
import * as Jose from "jose"
import { AuthConfig } from "./AuthConfig.js"

/** What a verified access token says. */
export interface AccessClaims {
  readonly sessionId: string
  readonly expiresAt: Date
}

/** The token is malformed, forged, expired or not one of ours. Deliberately carries no detail. */
export class InvalidAccessToken extends Data.TaggedError("InvalidAccessToken") {}

/** Issues and verifies access tokens (JWT, HS256 pinned, `iss`/`aud`/`typ` checked). */
export class AccessTokens extends Context.Tag("@aide/kernel/AccessTokens")<
  AccessTokens,
  {
    readonly issue: (sessionId: string) => Effect.Effect<{ readonly token: string; readonly expiresAt: Date }>
    readonly verify: (token: string) => Effect.Effect<AccessClaims, InvalidAccessToken>
  }
>() {}

const tokenType = "at+jwt"
const algorithm = "HS256"
/** Verified tokens remembered, so a token is checked cryptographically once, not per request. */
const verifiedCacheSize = 10_000

export interface AccessTokensOptions {
  /** The HMAC key: at least 32 bytes (256 bits). */
  readonly secret: Redacted.Redacted<Uint8Array>
}

export const make = Effect.fn("AccessTokens.make")(function* (options: AccessTokensOptions) {
  const config = yield* AuthConfig
  const secret = Redacted.value(options.secret)
  if (secret.byteLength < 32) {
    return yield* Effect.dieMessage("the access token secret must be at least 32 bytes")
  }
  const key = yield* Effect.promise(() =>
    crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]),
  )
  const ttlSeconds = Math.floor(Duration.toSeconds(config.accessTokenTtl))
  // Insertion-ordered, so the first key is the oldest: a cheap bounded cache.
  const verified = new Map<string, AccessClaims>()

  const remember = (token: string, claims: AccessClaims) => {
    if (verified.size >= verifiedCacheSize) {
      const oldest = verified.keys().next()
      if (!oldest.done) verified.delete(oldest.value)
    }
    verified.set(token, claims)
  }

  const issue = (sessionId: string) =>
    Effect.gen(function* () {
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const exp = nowSeconds + ttlSeconds
      const token = yield* Effect.promise(() =>
        new Jose.SignJWT({ sid: sessionId })
          .setProtectedHeader({ alg: algorithm, typ: tokenType })
          .setIssuer(config.issuer)
          .setAudience(config.audience)
          .setSubject("owner")
          .setIssuedAt(nowSeconds)
          .setExpirationTime(exp)
          .setJti(crypto.randomUUID())
          .sign(key),
      )
      return { token, expiresAt: new Date(exp * 1000) }
    })

  const verifySignature = (token: string, now: number) =>
    Effect.tryPromise({
      try: () =>
        Jose.jwtVerify(token, key, {
          algorithms: [algorithm],
          issuer: config.issuer,
          audience: config.audience,
          typ: tokenType,
          currentDate: new Date(now),
          requiredClaims: ["sid", "exp", "iat"],
        }),
      catch: () => new InvalidAccessToken(),
    }).pipe(
      Effect.flatMap(({ payload }) =>
        typeof payload.sid === "string" && typeof payload.exp === "number"
          ? Effect.succeed<AccessClaims>({ sessionId: payload.sid, expiresAt: new Date(payload.exp * 1000) })
          : Effect.fail(new InvalidAccessToken()),
      ),
      Effect.tap((claims) => Effect.sync(() => remember(token, claims))),
    )

  // On every authenticated request: one step when the token is known (the Clock read in place).
  const verify = (token: string) =>
    Effect.clockWith((clock) => {
      const now = clock.unsafeCurrentTimeMillis()
      const claims = verified.get(token)
      if (claims === undefined) return verifySignature(token, now)
      if (claims.expiresAt.getTime() > now) return Effect.succeed(claims)
      verified.delete(token)
      return Effect.fail(new InvalidAccessToken())
    })

  return AccessTokens.of({ issue, verify })
})

/** HS256 tokens signed with `options.secret`; needs `AuthConfig` for the lifetime and claims. */
export const layer = (options: AccessTokensOptions): Layer.Layer<AccessTokens, never, AuthConfig> =>
  Layer.effect(AccessTokens, make(options))

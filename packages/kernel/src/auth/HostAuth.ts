import type { KeyObject } from "node:crypto"
import { Clock, Data, Duration, Effect, Layer, Redacted } from "effect"
import * as Jose from "jose"
import { Auth } from "./Auth.js"
import { AuthExternal, SessionNotFound, Unauthenticated } from "./AuthErrors.js"
import type { Principal } from "./AuthModel.js"

export interface HostAuthOptions {
  /**
   * Where the host publishes its public keys (e.g. `https://id.example.com/.well-known/jwks.json`),
   * fetched on first use and again when a token names an unknown `kid` (jose's cooldown applies).
   */
  readonly jwksUrl?: string | URL
  /** The host's keys inline, as a JSON Web Key Set (`{ keys: [...] }`). */
  readonly jwks?: Jose.JSONWebKeySet
  /** One key: an HMAC secret (HS256…), or a public key object (RS256, ES256, EdDSA…). */
  readonly key?: Redacted.Redacted<Uint8Array> | KeyObject | CryptoKey
  /** Required `iss` (one or several); unchecked when absent. */
  readonly issuer?: string | ReadonlyArray<string>
  /** Required `aud` (one or several); unchecked when absent. */
  readonly audience?: string | ReadonlyArray<string>
  /** Accepted `alg` values; default: what the key allows (jose's rules; `none` never). */
  readonly algorithms?: ReadonlyArray<string>
  /** Leeway for `exp` and `nbf`; default 5 seconds. */
  readonly clockTolerance?: Duration.DurationInput
  /** Longest accepted token length, checked before any parsing; default 8 KiB. */
  readonly maxTokenLength?: number
  /**
   * Longest a token may live: with it, every token needs an `iat` (not in the future), one whose
   * `exp` lies further than this past its `iat` is refused, and none is accepted once this has
   * passed since its `iat`. Default: unbounded (the token's `exp` decides).
   */
  readonly maxLifetime?: Duration.DurationInput
  /**
   * Accept tokens without `exp` (default false: they are refused, since nothing would end them).
   * Needs `maxLifetime`: such a token ends `maxLifetime` after its `iat`.
   */
  readonly allowMissingExp?: boolean
}

/** Why a `HostAuth` cannot be built: no key or several kinds of keys, or tokens without `exp` and no lifetime. */
export class HostAuthOptionsError extends Data.TaggedError("HostAuthOptionsError")<{ readonly message: string }> {}

/** Verified tokens remembered (until they end), so a token is checked once, not per request. */
const verifiedCacheSize = 10_000

const keyOf = (options: HostAuthOptions): Jose.JWTVerifyGetKey | Jose.CryptoKey | KeyObject | Uint8Array => {
  const given = [options.jwksUrl, options.jwks, options.key].filter((value) => value !== undefined)
  if (given.length !== 1) {
    throw new HostAuthOptionsError({ message: "HostAuth: give exactly one of `jwksUrl`, `jwks` or `key`" })
  }
  if (options.jwksUrl !== undefined) return Jose.createRemoteJWKSet(new URL(options.jwksUrl))
  if (options.jwks !== undefined) return Jose.createLocalJWKSet(options.jwks)
  const key = options.key!
  return Redacted.isRedacted(key) ? Redacted.value(key) : key
}

/** `maxLifetime` in whole seconds (the unit of `iat` and `exp`), or undefined when unbounded. */
const lifetimeOf = (options: HostAuthOptions) => {
  if (options.maxLifetime === undefined) {
    if (options.allowMissingExp === true) {
      throw new HostAuthOptionsError({ message: "HostAuth: `allowMissingExp` needs a `maxLifetime`" })
    }
    return undefined
  }
  const seconds = Math.floor(Duration.toSeconds(options.maxLifetime))
  if (!(seconds >= 1)) throw new HostAuthOptionsError({ message: "HostAuth: `maxLifetime` must be 1 second or more" })
  return seconds
}

/**
 * An `Auth` that accepts the host application's own JWTs, for an embedder with its own identity
 * provider: `authenticate` verifies the token's signature (against the JWKS or the key), `exp`,
 * `nbf`, and `iss`/`aud` when configured (a token without `exp` is refused unless `allowMissingExp`
 * and `maxLifetime` bound it), and the principal is the token's session: its `sid`
 * claim, else its `sub`. Aide keeps no password and no session: `setup`, `login`, `refresh` and
 * `changePassword` fail with `AuthExternal`, `isSetup` is true, the session list is empty, and
 * logging out or revoking is the host's business: `logout` answers but revokes nothing, so a
 * token stays valid until its `exp` (or `iat` + `maxLifetime`). Keep host tokens short-lived.
 *
 * @example
 * Kernel.layer({ authLayer: HostAuth.layer({ jwksUrl: "https://id.example.com/.well-known/jwks.json", issuer: "https://id.example.com", audience: "aide" }) })
 */
export const make = (options: HostAuthOptions): Auth["Type"] => {
  const key = keyOf(options)
  const lifetime = lifetimeOf(options)
  const toleranceSeconds = Math.floor(Duration.toSeconds(options.clockTolerance ?? Duration.seconds(5)))
  const verifyOptions: Jose.JWTVerifyOptions = {
    ...(options.issuer === undefined ? {} : { issuer: [options.issuer].flat() }),
    ...(options.audience === undefined ? {} : { audience: [options.audience].flat() }),
    ...(options.algorithms === undefined ? {} : { algorithms: [...options.algorithms] }),
    clockTolerance: toleranceSeconds,
    // jose then also wants `iat`, refuses one in the future, and a token older than the lifetime.
    ...(lifetime === undefined ? {} : { maxTokenAge: lifetime }),
    requiredClaims: options.allowMissingExp === true ? [] : ["exp"],
  }
  const maxTokenLength = options.maxTokenLength ?? 8192
  const toleranceMillis = toleranceSeconds * 1000
  const verify = (token: string, now: number) => {
    const at = { ...verifyOptions, currentDate: new Date(now) }
    return typeof key === "function" ? Jose.jwtVerify(token, key, at) : Jose.jwtVerify(token, key, at)
  }
  // A signature check costs ~0.4 ms (HS256) to ~0.7 ms (ES256): each token is checked once, then
  // remembered until it ends plus the tolerance. Insertion-ordered, so the first key is the
  // oldest: a cheap bounded cache, as in `AccessTokens`.
  const verified = new Map<string, { readonly principal: Principal; readonly expiresAt: number }>()
  const remember = (token: string, principal: Principal, exp: number) => {
    if (verified.size >= verifiedCacheSize) {
      const oldest = verified.keys().next()
      if (!oldest.done) verified.delete(oldest.value)
    }
    verified.set(token, { principal, expiresAt: exp * 1000 + toleranceMillis })
  }

  const verifySignature = (token: string, now: number) =>
    Effect.tryPromise({ try: () => verify(token, now), catch: () => new Unauthenticated() }).pipe(
      Effect.flatMap(({ payload }) => {
        const session = typeof payload.sid === "string" ? payload.sid : payload.sub
        if (typeof session !== "string" || session.length === 0) return Effect.fail(new Unauthenticated())
        // A token the host made to live longer than allowed is refused outright, not cut short:
        // the host learns at once, rather than its users mid-session. (jose has checked that
        // `exp` and `iat` are numbers when present, and that `iat` is there with a lifetime.)
        if (lifetime !== undefined && payload.exp !== undefined && payload.exp - payload.iat! > lifetime) {
          return Effect.fail(new Unauthenticated())
        }
        // `exp` is there unless `allowMissingExp`, which needs a lifetime: the end is finite.
        const end = Math.min(
          payload.exp ?? Number.POSITIVE_INFINITY,
          lifetime === undefined ? Number.POSITIVE_INFINITY : payload.iat! + lifetime,
        )
        const principal: Principal = { sessionId: session }
        remember(token, principal, end)
        return Effect.succeed(principal)
      }),
      Effect.withSpan("HostAuth.verify"),
    )

  const authenticate = (accessToken: string) =>
    accessToken.length > maxTokenLength
      ? Effect.fail(new Unauthenticated())
      : Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const known = verified.get(accessToken)
          if (known === undefined) return verifySignature(accessToken, now)
          if (known.expiresAt > now) return Effect.succeed(known.principal)
          verified.delete(accessToken)
          return Effect.fail(new Unauthenticated())
        })

  const external = () => Effect.fail(new AuthExternal())
  return Auth.of({
    isSetup: Effect.succeed(true),
    setup: external,
    login: external,
    refresh: external,
    authenticate,
    logout: () => Effect.void,
    changePassword: external,
    listSessions: () => Effect.succeed([]),
    revokeSession: (_principal, sessionId) => Effect.fail(new SessionNotFound({ id: sessionId })),
    revokeAllSessions: Effect.succeed(0),
  })
}

/** `Auth` over the host's JWTs; requires nothing. Throws `HostAuthOptionsError` without exactly one key source. */
export const layer = (options: HostAuthOptions): Layer.Layer<Auth> => Layer.succeed(Auth, make(options))

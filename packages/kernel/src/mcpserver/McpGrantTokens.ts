import * as Crypto from "node:crypto"
import { Duration, Effect, Option } from "effect"
import { sha256 } from "../auth/Sessions.js"
import type { Ids } from "../ids/Ids.js"
import type { McpGrantRow, McpGrantStore, McpTokenRow } from "./McpGrantStore.js"
import * as Requests from "./McpOAuthRequests.js"

/** Every secret of `/mcp`'s OAuth server starts so: never a JWT, so `/api` refuses them all. */
export const tokenPrefix = "aide_mcp_"
export const accessTokenPrefix = "aide_mcp_at_"
const prefixes = { access: accessTokenPrefix, refresh: "aide_mcp_rt_", code: "aide_mcp_code_" } as const

/** The token endpoint's success (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: number
  readonly refresh_token: string
  readonly scope: string
}

interface Deps {
  readonly store: McpGrantStore["Type"]
  readonly ids: Ids["Type"]
  readonly options: {
    readonly resource: string
    readonly accessTokenTtl: Duration.DurationInput
    readonly refreshTokenTtl: Duration.DurationInput
  }
  readonly now: Effect.Effect<Date>
}

const invalidGrant = (description: string) =>
  new Requests.OAuthError({ error: "invalid_grant", description, status: 400 })
const invalidRequest = (description: string) =>
  new Requests.OAuthError({ error: "invalid_request", description, status: 400 })

/** Constant-time: the verifier's S256 against the stored challenge (RFC 7636 §4.6). */
const pkceMatches = (verifier: string, challenge: string) => {
  const computed = Buffer.from(Crypto.createHash("sha256").update(verifier).digest("base64url"))
  const expected = Buffer.from(challenge)
  return computed.length === expected.length && Crypto.timingSafeEqual(computed, expected)
}

/** The token and revocation endpoints of `McpGrants`. */
export const make = ({ store, ids, options, now }: Deps) => {
  const newSecret = (kind: keyof typeof prefixes) => Effect.map(ids.secret(32), (secret) => prefixes[kind] + secret)

  /** A fresh access and refresh token for `grantId`, the rows to store and the answer. */
  const issue = Effect.fn("McpGrants.issue")(function* (grantId: string, at: Date, tools: ReadonlyArray<string>) {
    const access = yield* newSecret("access")
    const refresh = yield* newSecret("refresh")
    const accessExpires = new Date(at.getTime() + Duration.toMillis(options.accessTokenTtl))
    const refreshExpires = new Date(at.getTime() + Duration.toMillis(options.refreshTokenTtl))
    const rows: ReadonlyArray<McpTokenRow> = [
      { hash: sha256(access), grantId, kind: "access", expiresAt: accessExpires.toISOString() },
      { hash: sha256(refresh), grantId, kind: "refresh", expiresAt: refreshExpires.toISOString() },
    ]
    const response = (granted: ReadonlyArray<string>): TokenResponse => ({
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.floor(Duration.toSeconds(options.accessTokenTtl)),
      refresh_token: refresh,
      scope: granted.join(" "),
    })
    return { rows, refreshExpires, response: response(tools), responseFor: response }
  })

  /** A leaked secret was presented again: everything issued from it ends (RFC 9700 §4.14.2, RFC 6749 §4.1.2). */
  const revokeLeaked = (grantId: string | null, what: string) =>
    grantId === null
      ? Effect.void
      : Effect.flatMap(now, (at) => store.revokeGrant(grantId, at.toISOString())).pipe(
          Effect.tap((revoked) =>
            revoked
              ? Effect.logWarning(`${what} reused: MCP grant revoked`).pipe(Effect.annotateLogs({ grantId }))
              : Effect.void,
          ),
        )

  const checkResource = (params: Readonly<Record<string, string>>, bound: string) =>
    params.resource !== undefined && Requests.canonicalResource(params.resource) !== bound
      ? Effect.fail(
          new Requests.OAuthError({ error: "invalid_target", description: `resource must be ${bound}`, status: 400 }),
        )
      : Effect.void

  const exchangeCode = Effect.fn("McpGrants.exchangeCode")(function* (params: Readonly<Record<string, string>>) {
    const { code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri } = params
    if (code === undefined || clientId === undefined) return yield* invalidRequest("code and client_id are required")
    if (verifier === undefined || !Requests.codeVerifierPattern.test(verifier)) {
      return yield* invalidGrant("code_verifier is required (PKCE S256, 43 to 128 characters)")
    }
    const hash = sha256(code)
    const found = yield* store.findCode(hash)
    if (Option.isNone(found)) return yield* invalidGrant("unknown or expired code")
    const stored = found.value
    if (stored.usedAt !== null) {
      yield* revokeLeaked(stored.grantId, "authorization code")
      return yield* invalidGrant("the code was used already: the tokens issued from it are revoked")
    }
    const at = yield* now
    if (stored.expiresAt <= at.toISOString()) return yield* invalidGrant("the code expired")
    if (stored.clientId !== clientId) return yield* invalidGrant("the code was issued to another client")
    if (redirectUri !== stored.redirectUri)
      return yield* invalidGrant("redirect_uri differs from the authorization request's")
    if (!pkceMatches(verifier, stored.codeChallenge))
      return yield* invalidGrant("code_verifier does not match the challenge")
    yield* checkResource(params, stored.resource)
    const grant: McpGrantRow = {
      id: yield* ids.uuid,
      clientId,
      tools: stored.tools,
      resource: stored.resource,
      createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + Duration.toMillis(options.refreshTokenTtl)).toISOString(),
    }
    const issued = yield* issue(grant.id, at, stored.tools)
    const redeemed = yield* store.redeemCode({ hash, now: at.toISOString(), grant, tokens: issued.rows })
    if (Option.isNone(redeemed)) {
      // Another exchange of the same code won the race: both parties hold it, so neither keeps it.
      const again = yield* store.findCode(hash)
      yield* revokeLeaked(Option.isSome(again) ? again.value.grantId : null, "authorization code")
      return yield* invalidGrant("the code was used already")
    }
    return issued.response
  })

  const refresh = Effect.fn("McpGrants.refresh")(function* (params: Readonly<Record<string, string>>) {
    const token = params.refresh_token
    if (token === undefined || !token.startsWith(prefixes.refresh) || token.length > 200) {
      return yield* invalidGrant("unknown refresh token")
    }
    const hash = sha256(token)
    const at = yield* now
    const known = yield* store.findToken(hash)
    if (Option.isNone(known) || known.value.kind !== "refresh") return yield* invalidGrant("unknown refresh token")
    const issued = yield* issue(known.value.grantId, at, [])
    const rotated = yield* store.rotateRefreshToken({
      hash,
      now: at.toISOString(),
      expiresAt: issued.refreshExpires.toISOString(),
      tokens: issued.rows,
    })
    if (Option.isNone(rotated)) {
      if (
        known.value.rotatedAt !== null ||
        (yield* store.findToken(hash)).pipe(Option.exists((row) => row.rotatedAt !== null))
      ) {
        yield* revokeLeaked(known.value.grantId, "refresh token")
      }
      return yield* invalidGrant("the refresh token was used already, expired or revoked")
    }
    // A client presenting another client's refresh token: the token leaked.
    if (params.client_id !== undefined && params.client_id !== rotated.value.clientId) {
      yield* revokeLeaked(rotated.value.id, "refresh token")
      return yield* invalidGrant("the refresh token was issued to another client")
    }
    yield* checkResource(params, rotated.value.resource)
    return issued.responseFor(rotated.value.tools)
  })

  const token = (params: Readonly<Record<string, string>>) => {
    for (const value of Object.values(params)) {
      if (value.length > Requests.limits.maxParam) return Effect.fail(invalidRequest("a parameter is too long"))
    }
    if (params.grant_type === "authorization_code") return exchangeCode(params)
    if (params.grant_type === "refresh_token") return refresh(params)
    return Effect.fail(
      new Requests.OAuthError({
        error: "unsupported_grant_type",
        description: "grant_type must be authorization_code or refresh_token",
        status: 400,
      }),
    )
  }

  const revoke = (value: string) =>
    value.startsWith(tokenPrefix) && value.length <= 200
      ? Effect.flatMap(store.findToken(sha256(value)), (row) =>
          Option.isNone(row)
            ? Effect.void
            : Effect.flatMap(now, (at) => store.revokeGrant(row.value.grantId, at.toISOString())).pipe(Effect.asVoid),
        )
      : Effect.void

  return { newSecret, token, revoke }
}

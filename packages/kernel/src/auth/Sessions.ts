import * as Crypto from "node:crypto"
import { Duration, Effect, Option } from "effect"
import type { Ids } from "../ids/Ids.js"
import type { AccessTokens } from "./AccessTokens.js"
import type * as ActiveSessions from "./ActiveSessions.js"
import type { AuthConfig } from "./AuthConfig.js"
import type { ClientInfo, TokenPair } from "./AuthModel.js"
import type { AuthStore, SessionRow } from "./AuthStore.js"

const refreshTokenPrefix = "aide_rt_"
/** Revoked and expired sessions are kept this long (visible to an operator), then purged. */
const sessionRetention = Duration.days(30)

/** Refresh tokens are stored as this hash only. */
export const sha256 = (value: string) => Crypto.createHash("sha256").update(value).digest("base64url")

/** What `Auth` issues sessions with. */
export interface SessionDeps {
  readonly config: AuthConfig["Type"]
  readonly store: AuthStore["Type"]
  readonly accessTokens: AccessTokens["Type"]
  readonly ids: Ids["Type"]
  readonly activeSessions: ReturnType<typeof ActiveSessions.make>
  readonly now: Effect.Effect<Date>
}

/** How `Auth` opens sessions: the refresh token (stored hashed), the session row, the token pair. */
export const make = ({ config, store, accessTokens, ids, activeSessions, now }: SessionDeps) => {
  const newRefreshToken = Effect.map(ids.secret(32), (secret) => refreshTokenPrefix + secret)

  const pair = (sessionId: string, refreshToken: string, refreshExpiresAt: Date) =>
    Effect.map(
      accessTokens.issue(sessionId),
      ({ token, expiresAt }): TokenPair => ({ token, refreshToken, expiresAt, refreshExpiresAt }),
    )

  /** A new session's row and refresh token, not stored yet. */
  const newSession = Effect.fn("Auth.newSession")(function* (client: ClientInfo) {
    const issuedAt = yield* now
    const expiresAt = new Date(issuedAt.getTime() + Duration.toMillis(config.refreshTokenTtl))
    const refreshToken = yield* newRefreshToken
    const row: SessionRow = {
      id: yield* ids.uuid,
      createdAt: issuedAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
      userAgent: client.userAgent,
      ip: client.ip,
    }
    return { row, refreshToken, expiresAt }
  })

  /**
   * Opens a session if the password verified against `generation` is still the owner's;
   * none when it changed meanwhile (the caller answers as for a wrong password).
   */
  const startSession = Effect.fn("Auth.startSession")(function* (client: ClientInfo, generation: number) {
    const session = yield* newSession(client)
    yield* store.purgeSessions(
      new Date(Date.parse(session.row.createdAt) - Duration.toMillis(sessionRetention)).toISOString(),
    )
    const created = store.createSession(session.row, sha256(session.refreshToken), generation)
    if (!(yield* activeSessions.remember(session.row.id, created))) return Option.none<TokenPair>()
    return Option.some(yield* pair(session.row.id, session.refreshToken, session.expiresAt))
  })

  return { newRefreshToken, pair, newSession, startSession }
}

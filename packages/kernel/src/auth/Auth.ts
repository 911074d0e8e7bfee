import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { Ids } from "../ids/Ids.js"
import type { StorageError } from "../storage/StorageError.js"
import { AccessTokens } from "./AccessTokens.js"
import * as ActiveSessions from "./ActiveSessions.js"
import { AuthConfig } from "./AuthConfig.js"
import {
  AlreadySetup,
  type AuthExternal,
  InvalidCredentials,
  InvalidPassword,
  InvalidRefreshToken,
  SessionNotFound,
  SetupRequired,
  Unauthenticated,
} from "./AuthErrors.js"
import type { ClientInfo, Principal, Session, TokenPair } from "./AuthModel.js"
import { AuthStore } from "./AuthStore.js"
import { PasswordHasher } from "./PasswordHasher.js"
import * as PasswordRule from "./PasswordRule.js"
import * as SessionList from "./SessionList.js"
import * as SessionSignals from "./SessionSignals.js"
import * as Sessions from "./Sessions.js"

/**
 * The owner's password, sessions and tokens. A session is a device: it owns one refresh-token
 * chain and every access token issued from it, so revoking it ends all of them at once.
 *
 * Contract for an implementation (`Kernel.layer({ authLayer })`; `HostAuth` is one): `authenticate`
 * gets every request's bearer token, unbounded: it bounds its own work, fails with
 * `Unauthenticated` for anything it does not accept (never a defect), and answers a `Principal`
 * whose `sessionId` is stable for the token's session; a revoked token fails from then on.
 * Unsupported methods fail with `AuthExternal` (403 `auth_external`). No secret is ever logged.
 */
export class Auth extends Context.Tag("@aide/kernel/Auth")<
  Auth,
  {
    /** True once a password exists. */
    readonly isSetup: Effect.Effect<boolean, StorageError>
    readonly setup: (
      password: string,
      client: ClientInfo,
    ) => Effect.Effect<TokenPair, AlreadySetup | InvalidPassword | AuthExternal | StorageError>
    readonly login: (
      password: string,
      client: ClientInfo,
    ) => Effect.Effect<TokenPair, SetupRequired | InvalidCredentials | AuthExternal | StorageError>
    /** Rotates the refresh token; replaying a rotated one revokes its whole session. */
    readonly refresh: (
      refreshToken: string,
    ) => Effect.Effect<TokenPair, InvalidRefreshToken | AuthExternal | StorageError>
    /** Verifies an access token and that its session is still active. */
    readonly authenticate: (accessToken: string) => Effect.Effect<Principal, Unauthenticated | StorageError>
    readonly logout: (principal: Principal) => Effect.Effect<void, StorageError>
    /**
     * Checks the current password, replaces it, revokes every session, and opens a new one. Once
     * it succeeds no login checked against the old password can open a session (docs/auth.md).
     */
    readonly changePassword: (input: {
      readonly currentPassword: string
      readonly newPassword: string
      readonly client: ClientInfo
    }) => Effect.Effect<TokenPair, InvalidCredentials | InvalidPassword | SetupRequired | AuthExternal | StorageError>
    readonly listSessions: (principal: Principal) => Effect.Effect<ReadonlyArray<Session>, StorageError>
    /** Revokes one session; `loggedOut` is true when it was the caller's own. */
    readonly revokeSession: (
      principal: Principal,
      sessionId: string,
    ) => Effect.Effect<{ readonly loggedOut: boolean }, SessionNotFound | StorageError>
    /** Revokes every session, the caller's included; returns how many were active. */
    readonly revokeAllSessions: Effect.Effect<number, StorageError>
  }
>() {}

const build = Effect.gen(function* () {
  const config = yield* AuthConfig
  const store = SessionList.cached(yield* AuthStore)
  const hasher = yield* PasswordHasher
  const accessTokens = yield* AccessTokens
  const ids = yield* Ids

  // See docs/auth.md for replicas sharing one database, and SessionSignals.
  const activeSessions = ActiveSessions.make()
  const revocations = SessionSignals.revocations(activeSessions)
  let setupSeen = false

  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

  const checkNewPassword = (password: string) => PasswordRule.check(config, password)

  const { newRefreshToken, pair, newSession, startSession } = Sessions.make({
    config,
    store,
    accessTokens,
    ids,
    activeSessions,
    now,
  })

  const isSetup = Effect.suspend(() =>
    setupSeen
      ? Effect.succeed(true)
      : Effect.map(store.credentials, (credentials) => {
          setupSeen = Option.isSome(credentials)
          return setupSeen
        }),
  )

  const setup = Effect.fn("Auth.setup")(function* (password: string, client: ClientInfo) {
    if (Option.isSome(yield* store.credentials)) return yield* new AlreadySetup()
    yield* checkNewPassword(password)
    const hash = yield* hasher.hash(password)
    // Two concurrent setups both pass the check above; the insert lets only one win.
    if (!(yield* store.createOwner(hash, (yield* now).toISOString()))) return yield* new AlreadySetup()
    setupSeen = true
    // Generation 0 is the first password's; should it have been changed already, setup lost.
    const started = yield* startSession(client, 0)
    if (Option.isNone(started)) return yield* new AlreadySetup()
    return started.value
  })

  /**
   * Checks `password` against the stored hash; returns the credential generation that hash
   * belongs to. The check takes tens of milliseconds outside any transaction, so whatever it
   * allows must be conditional on that generation (the password may change meanwhile).
   */
  const verifyPassword = Effect.fn("Auth.verifyPassword")(function* (password: string) {
    const credentials = yield* store.credentials
    if (Option.isNone(credentials)) return yield* new SetupRequired()
    // Over-long input is rejected unhashed (no hashing DoS), with the same error as a wrong password.
    if (password.length > config.maxPasswordLength * 4) return yield* new InvalidCredentials()
    if (!(yield* hasher.verify(credentials.value.hash, password))) return yield* new InvalidCredentials()
    return credentials.value.generation
  })

  const login = Effect.fn("Auth.login")(function* (password: string, client: ClientInfo) {
    const generation = yield* verifyPassword(password)
    // The password changed while it was checked: it was right, but no longer is.
    const started = yield* startSession(client, generation)
    if (Option.isNone(started)) return yield* new InvalidCredentials()
    return started.value
  })

  const refresh = Effect.fn("Auth.refresh")(function* (refreshToken: string) {
    const hash = Sessions.sha256(refreshToken)
    const rotatedAt = yield* now
    const expiresAt = new Date(rotatedAt.getTime() + Duration.toMillis(config.refreshTokenTtl))
    const nextToken = yield* newRefreshToken
    const sessionId = yield* store.rotateRefreshToken({
      hash,
      nextHash: Sessions.sha256(nextToken),
      now: rotatedAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
    })
    if (Option.isSome(sessionId)) return yield* pair(sessionId.value, nextToken, expiresAt)
    // Reuse detection (RFC 9700 §4.14.2): a rotated token presented again means it leaked,
    // so the whole session it belongs to is revoked.
    const known = yield* store.findRefreshToken(hash)
    if (Option.isSome(known) && known.value.rotatedAt !== null) {
      yield* store.revokeSession(known.value.sessionId, rotatedAt.toISOString())
      yield* revocations.drop([known.value.sessionId])
      yield* Effect.logWarning("refresh token reused: session revoked").pipe(
        Effect.annotateLogs({ sessionId: known.value.sessionId }),
      )
    }
    return yield* new InvalidRefreshToken()
  })

  // On every authenticated request: one frame for both outcomes of the token check.
  const authenticate = (accessToken: string) =>
    Effect.matchEffect(accessTokens.verify(accessToken), {
      onFailure: () => Effect.fail(new Unauthenticated()),
      onSuccess: ({ sessionId }): Effect.Effect<Principal, Unauthenticated | StorageError> => {
        if (activeSessions.has(sessionId)) return Effect.succeed<Principal>({ sessionId })
        const check = Effect.flatMap(now, (at) => store.isSessionActive(sessionId, at.toISOString()))
        return Effect.flatMap(activeSessions.remember(sessionId, check), (active) =>
          active ? Effect.succeed<Principal>({ sessionId }) : Effect.fail(new Unauthenticated()),
        )
      },
    })

  const logout = Effect.fn("Auth.logout")(function* (principal: Principal) {
    yield* store.revokeSession(principal.sessionId, (yield* now).toISOString())
    yield* revocations.drop([principal.sessionId])
  })

  const changePassword = Effect.fn("Auth.changePassword")(function* (input: {
    readonly currentPassword: string
    readonly newPassword: string
    readonly client: ClientInfo
  }) {
    const generation = yield* verifyPassword(input.currentPassword)
    yield* checkNewPassword(input.newPassword)
    const hash = yield* hasher.hash(input.newPassword)
    const session = yield* newSession(input.client)
    const replaced = yield* store.replacePassword({
      hash,
      now: session.row.createdAt,
      generation,
      session: session.row,
      refreshTokenHash: Sessions.sha256(session.refreshToken),
    })
    // Another change, verified against the same current password, won: that password is gone.
    if (Option.isNone(replaced)) return yield* new InvalidCredentials()
    yield* revocations.drop("all")
    return yield* pair(session.row.id, session.refreshToken, session.expiresAt)
  })

  const listSessions = SessionList.lister(store, now)

  const revokeSession = Effect.fn("Auth.revokeSession")(function* (principal: Principal, sessionId: string) {
    const revoked = yield* store.revokeSession(sessionId, (yield* now).toISOString())
    yield* revocations.drop([sessionId])
    if (!revoked) {
      return yield* new SessionNotFound({ id: sessionId })
    }
    return { loggedOut: sessionId === principal.sessionId }
  })

  const revokeAllSessions = Effect.gen(function* () {
    const revoked = yield* store.revokeAllSessions((yield* now).toISOString())
    yield* revocations.drop("all")
    return revoked.length
  }).pipe(Effect.withSpan("Auth.revokeAllSessions"))

  const service = Auth.of({
    isSetup,
    setup,
    login,
    refresh,
    authenticate,
    logout,
    changePassword,
    listSessions,
    revokeSession,
    revokeAllSessions,
  })
  return { service, revocations }
})

export const make = Effect.map(build, ({ service }) => service)

/** `Auth` over its Tags; with `ReplicaSignals`, revocations made elsewhere empty its cache too. */
export const layer: Layer.Layer<Auth, never, AuthConfig | AuthStore | PasswordHasher | AccessTokens | Ids> =
  Layer.scoped(
    Auth,
    Effect.tap(build, ({ revocations }) => revocations.follow).pipe(Effect.map(({ service }) => service)),
  )

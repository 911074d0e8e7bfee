import type { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Redacted } from "effect"
import * as TestClock from "effect/TestClock"
import * as AccessTokens from "../src/auth/AccessTokens.js"
import * as Auth from "../src/auth/Auth.js"
import * as AuthConfig from "../src/auth/AuthConfig.js"
import type { ClientInfo, TokenPair } from "../src/auth/AuthModel.js"
import { AuthStore } from "../src/auth/AuthStore.js"
import { schema as authSchema } from "../src/auth/authSchema.js"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as Ids from "../src/ids/Ids.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import * as SqlMigrations from "../src/storage/SqlMigrations.js"

/** What `Auth` runs on, over a fresh in-memory database; `store` replaces the SQL store (to interleave calls). */
const dependencies = (store: Layer.Layer<AuthStore, unknown, SqlClient.SqlClient> = SqlAuthStore.layer) =>
  Layer.mergeAll(
    store,
    PasswordHasher.layerTest,
    AccessTokens.layer({ secret: Redacted.make(new Uint8Array(32).fill(7)) }),
    Ids.layer,
  ).pipe(Layer.provideMerge(AuthConfig.layer()), Layer.provideMerge(SqliteStorage.layer({ filename: ":memory:" })))

/** A fresh Auth: every test provides its own, so setup starts undone. */
const AuthLive = Auth.layer.pipe(Layer.provide(dependencies()))

const client: ClientInfo = { userAgent: "vitest", ip: "127.0.0.1" }
const password = "correct horse battery"

/** Runs `body` with a set-up Auth at a realistic instant; `pair` is the setup's token pair. */
const withOwner = <A, E>(body: (auth: Auth.Auth["Type"], pair: TokenPair) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2030-01-01T00:00:00.000Z"))
    const auth = yield* Auth.Auth
    const pair = yield* auth.setup(password, client)
    return yield* body(auth, pair)
  }).pipe(Effect.provide(AuthLive))

const withAuth = <A, E>(body: (auth: Auth.Auth["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Auth.Auth, body).pipe(Effect.provide(AuthLive))

const errorTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

const advance = (duration: Duration.DurationInput) => TestClock.adjust(duration)

describe("access tokens live 15 minutes", () => {
  it.effect("a token is accepted at 14:59 and rejected from 15:00", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        expect(yield* auth.authenticate(pair.token)).toEqual({ sessionId: expect.any(String) })
        yield* advance(Duration.sum(Duration.minutes(14), Duration.seconds(59)))
        expect(yield* auth.authenticate(pair.token)).toEqual({ sessionId: expect.any(String) })
        yield* advance("1 second")
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
        yield* advance("1 hour")
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }),
    ),
  )

  it.effect("a token first presented after 15 minutes is rejected", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        yield* advance("15 minutes")
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }),
    ),
  )

  it.effect("the pair says when the access token expires", () =>
    withOwner((_auth, pair) =>
      Effect.sync(() => {
        expect(pair.expiresAt.toISOString()).toBe("2030-01-01T00:15:00.000Z")
      }),
    ),
  )

  it.effect("a malformed or foreign token is rejected", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        expect(yield* errorTag(auth.authenticate("not-a-token"))).toBe("Unauthenticated")
        const [header, payload] = pair.token.split(".")
        expect(yield* errorTag(auth.authenticate(`${header}.${payload}.${"A".repeat(43)}`))).toBe("Unauthenticated")
      }),
    ),
  )
})

describe("refresh tokens live 7 days, renewed by each rotation", () => {
  it.effect("a refresh token is accepted just before 7 days", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        expect(pair.refreshExpiresAt.toISOString()).toBe("2030-01-08T00:00:00.000Z")
        yield* advance(Duration.subtract(Duration.days(7), Duration.seconds(1)))
        const next = yield* auth.refresh(pair.refreshToken)
        expect(yield* auth.authenticate(next.token)).toEqual({ sessionId: expect.any(String) })
      }),
    ),
  )

  it.effect("a refresh token is rejected from 7 days on", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        yield* advance("7 days")
        expect(yield* errorTag(auth.refresh(pair.refreshToken))).toBe("InvalidRefreshToken")
      }),
    ),
  )

  it.effect("rotation gives a new pair and 7 more days to the same session", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const first = yield* auth.authenticate(pair.token)
        yield* advance("6 days")
        const second = yield* auth.refresh(pair.refreshToken)
        expect(second.refreshToken).not.toBe(pair.refreshToken)
        expect(second.refreshExpiresAt.toISOString()).toBe("2030-01-14T00:00:00.000Z")

        // 12 days after setup: alive only because the rotation renewed it.
        yield* advance("6 days")
        const third = yield* auth.refresh(second.refreshToken)
        const principal = yield* auth.authenticate(third.token)
        expect(principal).toEqual(first)
        expect(yield* auth.listSessions(principal)).toEqual([
          expect.objectContaining({ id: first.sessionId, expiresAt: new Date("2030-01-20T00:00:00.000Z") }),
        ])

        yield* advance("7 days")
        expect(yield* errorTag(auth.refresh(third.refreshToken))).toBe("InvalidRefreshToken")
      }),
    ),
  )

  it.effect("an unknown refresh token is rejected", () =>
    withOwner((auth) =>
      Effect.gen(function* () {
        expect(yield* errorTag(auth.refresh("aide_rt_unknown"))).toBe("InvalidRefreshToken")
      }),
    ),
  )
})

describe("a reused refresh token revokes its session", () => {
  it.effect("presenting a rotated refresh token again ends the session and its successor tokens", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const next = yield* auth.refresh(pair.refreshToken)
        yield* auth.authenticate(next.token)

        expect(yield* errorTag(auth.refresh(pair.refreshToken))).toBe("InvalidRefreshToken")

        expect(yield* errorTag(auth.refresh(next.refreshToken))).toBe("InvalidRefreshToken")
        expect(yield* errorTag(auth.authenticate(next.token))).toBe("Unauthenticated")
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }),
    ),
  )

  it.effect("other sessions live on", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const other = yield* auth.login(password, client)
        yield* auth.refresh(pair.refreshToken)
        yield* Effect.flip(auth.refresh(pair.refreshToken))

        const principal = yield* auth.authenticate(other.token)
        expect(yield* auth.listSessions(principal)).toEqual([expect.objectContaining({ id: principal.sessionId })])
        yield* auth.refresh(other.refreshToken)
      }),
    ),
  )
})

describe("logout and revocation end access at once", () => {
  it.effect("after logout the access and refresh tokens of the session are rejected", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const principal = yield* auth.authenticate(pair.token)
        yield* auth.logout(principal)
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
        expect(yield* errorTag(auth.refresh(pair.refreshToken))).toBe("InvalidRefreshToken")
      }),
    ),
  )

  it.effect("revoking another session rejects its tokens and says the caller stays logged in", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const caller = yield* auth.authenticate(pair.token)
        const other = yield* auth.login(password, client)
        const otherPrincipal = yield* auth.authenticate(other.token)

        expect(yield* auth.revokeSession(caller, otherPrincipal.sessionId)).toEqual({ loggedOut: false })

        expect(yield* errorTag(auth.authenticate(other.token))).toBe("Unauthenticated")
        expect(yield* errorTag(auth.refresh(other.refreshToken))).toBe("InvalidRefreshToken")
        expect(yield* auth.authenticate(pair.token)).toEqual(caller)
      }),
    ),
  )

  it.effect("revoking one's own session logs the caller out", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const caller = yield* auth.authenticate(pair.token)
        expect(yield* auth.revokeSession(caller, caller.sessionId)).toEqual({ loggedOut: true })
        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }),
    ),
  )

  it.effect("revoking an unknown or already revoked session fails with SessionNotFound", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const caller = yield* auth.authenticate(pair.token)
        const other = yield* auth.authenticate((yield* auth.login(password, client)).token)
        yield* auth.revokeSession(caller, other.sessionId)
        expect(yield* errorTag(auth.revokeSession(caller, other.sessionId))).toBe("SessionNotFound")
        expect(yield* errorTag(auth.revokeSession(caller, crypto.randomUUID()))).toBe("SessionNotFound")
      }),
    ),
  )

  it.effect("revoking all sessions rejects every token and counts the active sessions", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const other = yield* auth.login(password, client)
        yield* auth.authenticate(pair.token)
        yield* auth.authenticate(other.token)

        expect(yield* auth.revokeAllSessions).toBe(2)

        for (const token of [pair.token, other.token]) {
          expect(yield* errorTag(auth.authenticate(token))).toBe("Unauthenticated")
        }
        for (const token of [pair.refreshToken, other.refreshToken]) {
          expect(yield* errorTag(auth.refresh(token))).toBe("InvalidRefreshToken")
        }
      }),
    ),
  )
})

describe("a revocation wins over requests in flight", () => {
  /** The SQL store, with `wrap` around some of its methods. */
  const storeWith = (wrap: (store: AuthStore["Type"]) => Partial<AuthStore["Type"]>) =>
    Layer.effect(
      AuthStore,
      Effect.map(SqlAuthStore.make, (store) => AuthStore.of({ ...store, ...wrap(store) })),
    ).pipe(Layer.provide(Layer.effectDiscard(SqlMigrations.ensure(authSchema))))

  it.effect("a request checked while logout is under way cannot keep the session alive", () =>
    Effect.gen(function* () {
      const revoking = yield* Deferred.make<void>()
      const gate = yield* Effect.makeLatch(false)
      const store = storeWith((store) => ({
        revokeSession: (id, now) =>
          Deferred.succeed(revoking, undefined).pipe(
            Effect.zipRight(gate.await),
            Effect.zipRight(store.revokeSession(id, now)),
          ),
      }))
      yield* Effect.gen(function* () {
        const auth = yield* Auth.make
        const pair = yield* auth.setup(password, client)
        const principal = yield* auth.authenticate(pair.token)

        const logout = yield* Effect.fork(auth.logout(principal))
        yield* Deferred.await(revoking)
        // The session is still active in the database: this request may pass.
        yield* Effect.either(auth.authenticate(pair.token))
        yield* gate.open
        yield* Fiber.join(logout)

        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }).pipe(Effect.provide(dependencies(store)))
    }),
  )

  it.effect("a check that read the session as active before a logout cannot keep it alive", () =>
    Effect.gen(function* () {
      const checked = yield* Deferred.make<void>()
      const gate = yield* Effect.makeLatch(false)
      const store = storeWith((store) => ({
        isSessionActive: (id, now) =>
          store.isSessionActive(id, now).pipe(
            Effect.tap(() => Deferred.succeed(checked, undefined)),
            Effect.zipLeft(gate.await),
          ),
      }))
      yield* Effect.gen(function* () {
        const before = yield* Auth.make
        const pair = yield* before.setup(password, client)
        const principal = yield* before.authenticate(pair.token)
        // A new instance over the same database, as after a restart: nothing is cached yet.
        const auth = yield* Auth.make

        const check = yield* Effect.fork(auth.authenticate(pair.token))
        yield* Deferred.await(checked)
        yield* auth.logout(principal)
        yield* gate.open
        // It began before the logout: it may pass.
        yield* Effect.either(Fiber.join(check))

        expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
      }).pipe(Effect.provide(dependencies(store)))
    }),
  )
})

describe("sessions", () => {
  it.effect("lists active sessions newest first and marks the caller's", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        yield* advance("1 minute")
        const other = yield* auth.login(password, { userAgent: "phone", ip: "10.0.0.2" })
        const caller = yield* auth.authenticate(pair.token)
        const otherPrincipal = yield* auth.authenticate(other.token)

        expect(yield* auth.listSessions(caller)).toEqual([
          {
            id: otherPrincipal.sessionId,
            createdAt: new Date("2030-01-01T00:01:00.000Z"),
            expiresAt: new Date("2030-01-08T00:01:00.000Z"),
            userAgent: "phone",
            ip: "10.0.0.2",
            current: false,
          },
          {
            id: caller.sessionId,
            createdAt: new Date("2030-01-01T00:00:00.000Z"),
            expiresAt: new Date("2030-01-08T00:00:00.000Z"),
            userAgent: client.userAgent,
            ip: client.ip,
            current: true,
          },
        ])
      }),
    ),
  )
})

describe("changing the password revokes every session", () => {
  it.effect("old tokens and the old password stop working; the new pair and password work", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        const other = yield* auth.login(password, client)
        yield* auth.authenticate(pair.token)
        yield* auth.authenticate(other.token)

        const fresh = yield* auth.changePassword({ currentPassword: password, newPassword: "a new password", client })

        for (const token of [pair.token, other.token]) {
          expect(yield* errorTag(auth.authenticate(token))).toBe("Unauthenticated")
        }
        for (const token of [pair.refreshToken, other.refreshToken]) {
          expect(yield* errorTag(auth.refresh(token))).toBe("InvalidRefreshToken")
        }
        const principal = yield* auth.authenticate(fresh.token)
        expect(yield* auth.listSessions(principal)).toEqual([expect.objectContaining({ id: principal.sessionId })])
        expect(yield* errorTag(auth.login(password, client))).toBe("InvalidCredentials")
        yield* auth.login("a new password", client)
        yield* auth.refresh(fresh.refreshToken)
      }),
    ),
  )

  it.effect("a wrong current password changes nothing", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        expect(
          yield* errorTag(
            auth.changePassword({ currentPassword: "wrong password", newPassword: "another one", client }),
          ),
        ).toBe("InvalidCredentials")
        yield* auth.authenticate(pair.token)
        yield* auth.login(password, client)
      }),
    ),
  )

  it.effect("a new password breaking the rules changes nothing", () =>
    withOwner((auth, pair) =>
      Effect.gen(function* () {
        expect(yield* errorTag(auth.changePassword({ currentPassword: password, newPassword: "short", client }))).toBe(
          "InvalidPassword",
        )
        yield* auth.authenticate(pair.token)
        yield* auth.login(password, client)
      }),
    ),
  )
})

describe("setup happens once", () => {
  it.effect("login before setup fails with SetupRequired", () =>
    withAuth((auth) =>
      Effect.gen(function* () {
        expect(yield* auth.isSetup).toBe(false)
        expect(yield* errorTag(auth.login(password, client))).toBe("SetupRequired")
      }),
    ),
  )

  it.effect("a second setup fails with AlreadySetup and keeps the first password", () =>
    withAuth((auth) =>
      Effect.gen(function* () {
        yield* auth.setup(password, client)
        expect(yield* auth.isSetup).toBe(true)
        expect(yield* errorTag(auth.setup("another password", client))).toBe("AlreadySetup")
        yield* auth.login(password, client)
        expect(yield* errorTag(auth.login("another password", client))).toBe("InvalidCredentials")
      }),
    ),
  )

  it.effect("of concurrent setups exactly one succeeds", () =>
    withAuth((auth) =>
      Effect.gen(function* () {
        const results = yield* Effect.all(
          Array.from({ length: 5 }, (_, i) => Effect.either(auth.setup(`password number ${i}`, client))),
          { concurrency: "unbounded" },
        )
        expect(results.filter((result) => result._tag === "Right")).toHaveLength(1)
        expect(results.filter((result) => result._tag === "Left").map((result) => result.left._tag)).toEqual([
          "AlreadySetup",
          "AlreadySetup",
          "AlreadySetup",
          "AlreadySetup",
        ])
      }),
    ),
  )
})

describe("passwords have at least 8 and at most 1024 characters", () => {
  const setupWith = (candidate: string) => withAuth((auth) => Effect.either(auth.setup(candidate, client)))

  it.effect("7 characters are rejected", () =>
    Effect.gen(function* () {
      const result = yield* setupWith("1234567")
      expect(result._tag === "Left" && result.left._tag).toBe("InvalidPassword")
    }),
  )

  it.effect("8, 128 and 1024 characters are accepted", () =>
    Effect.gen(function* () {
      for (const length of [8, 128, 1024]) {
        const candidate = "p".repeat(length)
        const result = yield* setupWith(candidate)
        expect(result._tag, `${length} characters`).toBe("Right")
      }
    }),
  )

  it.effect("1025 characters are rejected", () =>
    Effect.gen(function* () {
      const result = yield* setupWith("p".repeat(1025))
      expect(result._tag === "Left" && result.left._tag).toBe("InvalidPassword")
    }),
  )

  it.effect("characters are counted, not UTF-16 units", () =>
    Effect.gen(function* () {
      const sevenEmoji = "🔑".repeat(7)
      const eightEmoji = "🔑".repeat(8)
      const rejected = yield* setupWith(sevenEmoji)
      expect(rejected._tag === "Left" && rejected.left._tag).toBe("InvalidPassword")
      expect((yield* setupWith(eightEmoji))._tag).toBe("Right")
    }),
  )

  it.effect("an accepted long password logs in; an over-long one is just wrong", () =>
    withAuth((auth) =>
      Effect.gen(function* () {
        const longest = "p".repeat(1024)
        yield* auth.setup(longest, client)
        yield* auth.login(longest, client)
        expect(yield* errorTag(auth.login("p".repeat(100_000), client))).toBe("InvalidCredentials")
        expect(yield* errorTag(auth.login("wrong password", client))).toBe("InvalidCredentials")
      }),
    ),
  )
})

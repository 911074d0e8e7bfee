import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer, Redacted } from "effect"
import * as AccessTokens from "../src/auth/AccessTokens.js"
import * as Auth from "../src/auth/Auth.js"
import * as AuthConfig from "../src/auth/AuthConfig.js"
import type { ClientInfo } from "../src/auth/AuthModel.js"
import { AuthStore } from "../src/auth/AuthStore.js"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as Ids from "../src/ids/Ids.js"
import { tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

/**
 * A password change racing logins, refreshes and other changes, interleaved deterministically:
 * the password check and the store are paused at chosen points while the other side runs.
 */

const client: ClientInfo = { userAgent: "vitest", ip: "127.0.0.1" }
const password = "correct horse battery"
const newPassword = "a brand new passphrase"

/** Points where a test may pause a call: each call takes the next queued pause, if any. */
const makePauses = () => {
  const queue: Array<Effect.Effect<void>> = []
  return {
    next: Effect.suspend(() => queue.shift() ?? Effect.void),
    /** Queues one pause; `reached` completes when a call is held in it, `release` lets it go. */
    add: Effect.gen(function* () {
      const reached = yield* Deferred.make<void>()
      const released = yield* Deferred.make<void>()
      queue.push(Effect.zipRight(Deferred.succeed(reached, undefined), Deferred.await(released)))
      return { reached: Deferred.await(reached), release: Deferred.succeed(released, undefined) }
    }),
  }
}
type Pauses = ReturnType<typeof makePauses>

/** argon2id at test cost, paused between reading the stored hash and checking it. */
const pausedHasher = (pauses: Pauses) =>
  Layer.effect(
    PasswordHasher.PasswordHasher,
    Effect.map(PasswordHasher.PasswordHasher, (real) => ({
      hash: real.hash,
      verify: (hash: string, candidate: string) => Effect.zipRight(pauses.next, real.verify(hash, candidate)),
    })),
  ).pipe(Layer.provide(PasswordHasher.layerTest))

/** The SQL store, paused right after a session is stored (before `Auth` has it back). */
const pausedStore = (pauses: Pauses) =>
  Layer.effect(
    AuthStore,
    Effect.map(SqlAuthStore.make, (store) =>
      AuthStore.of({
        ...store,
        createSession: (session, refreshTokenHash, generation) =>
          Effect.zipLeft(store.createSession(session, refreshTokenHash, generation), pauses.next),
      }),
    ),
  )

const errorTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

const sessionRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ readonly id: string; readonly revoked: number }>`
    SELECT id, CASE WHEN revoked_at IS NULL THEN 0 ELSE 1 END AS "revoked" FROM auth_sessions`,
)

const dialects: ReadonlyArray<{
  readonly name: string
  readonly storage: Layer.Layer<SqlClient.SqlClient, unknown>
  readonly available: boolean
}> = [
  { name: "SQLite", storage: tempSqliteStorageLayer, available: true },
  { name: "PostgreSQL", storage: freshStorageLayer, available: postgresAvailable },
]

for (const dialect of dialects) {
  describe.skipIf(!dialect.available)(
    `a password change is serialized with every session it could race (${dialect.name})`,
    () => {
      /** Runs `body` against a fresh database, with password checks and session inserts pausable. */
      const run = <A, E>(
        body: (pauses: {
          readonly check: Pauses
          readonly stored: Pauses
        }) => Effect.Effect<A, E, Auth.Auth | SqlClient.SqlClient>,
      ) => {
        const pauses = { check: makePauses(), stored: makePauses() }
        const auth = Auth.layer.pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              pausedStore(pauses.stored),
              pausedHasher(pauses.check),
              AccessTokens.layer({ secret: Redacted.make(new Uint8Array(32).fill(7)) }),
              Ids.layer,
            ),
          ),
          Layer.provideMerge(AuthConfig.layer()),
          Layer.provideMerge(dialect.storage),
        )
        return Effect.provide(body(pauses), auth)
      }

      it.live(
        "a login whose password check spans a change fails as invalid credentials and stores no session",
        () =>
          run((pauses) =>
            Effect.gen(function* () {
              const auth = yield* Auth.Auth
              yield* auth.setup(password, client)
              const check = yield* pauses.check.add
              const login = yield* Effect.fork(auth.login(password, client))
              // The login has read the old hash and holds it, unchecked yet.
              yield* check.reached
              const fresh = yield* auth.changePassword({ currentPassword: password, newPassword, client })
              yield* check.release

              expect(yield* errorTag(Fiber.join(login))).toBe("InvalidCredentials")
              const principal = yield* auth.authenticate(fresh.token)
              const rows = yield* sessionRows
              // The setup's session (revoked) and the change's: the login stored nothing.
              expect(rows).toHaveLength(2)
              expect(rows.filter((row) => Number(row.revoked) === 0).map((row) => row.id)).toEqual([
                principal.sessionId,
              ])
            }),
          ),
        30_000,
      )

      it.live(
        "a session stored just before a change is revoked by it, in this process's cache too",
        () =>
          run((pauses) =>
            Effect.gen(function* () {
              const auth = yield* Auth.Auth
              yield* auth.setup(password, client)
              const stored = yield* pauses.stored.add
              const login = yield* Effect.fork(auth.login(password, client))
              yield* stored.reached
              yield* auth.changePassword({ currentPassword: password, newPassword, client })
              yield* stored.release
              // It won the race to the database, so it got its pair; the change then ended it.
              const pair = yield* Fiber.join(login)

              expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
              expect(yield* errorTag(auth.refresh(pair.refreshToken))).toBe("InvalidRefreshToken")
            }),
          ),
        30_000,
      )

      it.live(
        "of two changes checked against the same current password exactly one succeeds",
        () =>
          run((pauses) =>
            Effect.gen(function* () {
              const auth = yield* Auth.Auth
              yield* auth.setup(password, client)
              const first = yield* pauses.check.add
              const second = yield* pauses.check.add
              const change = (next: string) =>
                Effect.either(auth.changePassword({ currentPassword: password, newPassword: next, client }))
              const changes = yield* Effect.fork(
                Effect.all([change("first new password"), change("second new password")], { concurrency: 2 }),
              )
              // Both have checked the current password before either replaces it.
              yield* first.reached
              yield* second.reached
              yield* first.release
              yield* second.release
              const results = yield* Fiber.join(changes)

              expect(results.filter(Either.isRight)).toHaveLength(1)
              expect(results.filter(Either.isLeft).map((result) => result.left._tag)).toEqual(["InvalidCredentials"])
              const [winner, loser] = Either.isRight(results[0]!)
                ? ["first new password", "second new password"]
                : ["second new password", "first new password"]
              yield* auth.login(winner, client)
              expect(yield* errorTag(auth.login(loser, client))).toBe("InvalidCredentials")
              expect(yield* errorTag(auth.login(password, client))).toBe("InvalidCredentials")
              const rows = yield* sessionRows
              expect(rows.filter((row) => Number(row.revoked) === 0)).toHaveLength(2)
            }),
          ),
        30_000,
      )

      it.live(
        "a refresh in flight during a change yields tokens that no longer work",
        () =>
          run(() =>
            Effect.gen(function* () {
              const auth = yield* Auth.Auth
              const pair = yield* auth.setup(password, client)
              const [refreshed] = yield* Effect.all(
                [
                  Effect.either(auth.refresh(pair.refreshToken)),
                  auth.changePassword({ currentPassword: password, newPassword, client }),
                ],
                { concurrency: 2 },
              )
              if (Either.isRight(refreshed)) {
                expect(yield* errorTag(auth.authenticate(refreshed.right.token))).toBe("Unauthenticated")
                expect(yield* errorTag(auth.refresh(refreshed.right.refreshToken))).toBe("InvalidRefreshToken")
              }
              expect(yield* errorTag(auth.authenticate(pair.token))).toBe("Unauthenticated")
            }),
          ),
        30_000,
      )

      it.live(
        "of concurrent setups exactly one succeeds and only its password logs in",
        () =>
          run(() =>
            Effect.gen(function* () {
              const auth = yield* Auth.Auth
              const candidates = Array.from({ length: 5 }, (_, i) => `password number ${i}`)
              const results = yield* Effect.all(
                candidates.map((candidate) => Effect.either(auth.setup(candidate, client))),
                { concurrency: "unbounded" },
              )

              expect(results.filter(Either.isRight)).toHaveLength(1)
              const winner = candidates[results.findIndex(Either.isRight)]!
              yield* auth.login(winner, client)
              for (const candidate of candidates.filter((candidate) => candidate !== winner)) {
                expect(yield* errorTag(auth.login(candidate, client))).toBe("InvalidCredentials")
              }
            }),
          ),
        30_000,
      )
    },
  )
}

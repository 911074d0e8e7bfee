import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer, type Vitest } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { AuthStore, type SessionRow } from "../src/auth/AuthStore.js"
import { schema as authSchema } from "../src/auth/authSchema.js"
import * as SqlAuthStore from "../src/auth/SqlAuthStore.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import * as SqlMigrations from "../src/storage/SqlMigrations.js"
import { tempDirectory, tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

const base = Date.parse("2030-01-01T00:00:00.000Z")
/** The ISO 8601 timestamp `minutes` after a fixed instant. */
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString()

const day = 24 * 60

const newSession = (expiresAt: string, createdAt = at(0)): SessionRow => ({
  id: crypto.randomUUID(),
  createdAt,
  expiresAt,
  userAgent: "vitest",
  ip: "127.0.0.1",
})

const newHash = () => `hash-${crypto.randomUUID()}`

/** Every test starts from empty tables: the suite shares one database per dialect. */
const reset = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM auth_refresh_tokens`
  yield* sql`DELETE FROM auth_sessions`
  yield* sql`DELETE FROM auth_owner`
  return yield* AuthStore
})

/** The current credential generation, creating the owner first if there is none. */
const generation = (store: AuthStore["Type"]) =>
  Effect.gen(function* () {
    yield* store.createOwner("owner-hash", at(0))
    return Option.getOrThrow(yield* store.credentials).generation
  })

/** A stored session with its first refresh token. */
const storedSession = (store: AuthStore["Type"], expiresAt = at(7 * day), createdAt = at(0)) =>
  Effect.gen(function* () {
    const session = newSession(expiresAt, createdAt)
    const hash = newHash()
    expect(yield* store.createSession(session, hash, yield* generation(store))).toBe(true)
    return { session, hash }
  })

const suite = (it: Vitest.MethodsNonLive<AuthStore | SqlClient.SqlClient>) => {
  describe("createOwner", () => {
    it.effect("stores the first password and refuses a second owner", () =>
      Effect.gen(function* () {
        const store = yield* reset
        expect(yield* store.credentials).toEqual(Option.none())
        expect(yield* store.createOwner("first-hash", at(0))).toBe(true)
        expect(yield* store.createOwner("second-hash", at(1))).toBe(false)
        expect(yield* store.credentials).toEqual(Option.some({ hash: "first-hash", generation: 0 }))
      }),
    )
  })

  describe("replacePassword", () => {
    it.effect("replaces the hash, bumps the generation, revokes every live session and opens the new one", () =>
      Effect.gen(function* () {
        const store = yield* reset
        yield* store.createOwner("old-hash", at(0))
        const first = yield* storedSession(store)
        const second = yield* storedSession(store)
        const alreadyRevoked = yield* storedSession(store)
        yield* store.revokeSession(alreadyRevoked.session.id, at(1))

        const fresh = newSession(at(7 * day + 2), at(2))
        const revoked = yield* store.replacePassword({
          hash: "new-hash",
          now: at(2),
          generation: 0,
          session: fresh,
          refreshTokenHash: newHash(),
        })

        expect([...Option.getOrThrow(revoked)].sort()).toEqual([first.session.id, second.session.id].sort())
        expect(yield* store.credentials).toEqual(Option.some({ hash: "new-hash", generation: 1 }))
        expect(yield* store.listActiveSessions(at(3))).toEqual([fresh])
        expect(yield* store.isSessionActive(first.session.id, at(3))).toBe(false)
        const rotation = yield* store.rotateRefreshToken({
          hash: second.hash,
          nextHash: newHash(),
          now: at(3),
          expiresAt: at(7 * day + 3),
        })
        expect(rotation).toEqual(Option.none())
      }),
    )

    it.effect("changes nothing when the generation moved: of two changes from one password one wins", () =>
      Effect.gen(function* () {
        const store = yield* reset
        yield* store.createOwner("old-hash", at(0))
        const change = (hash: string) =>
          store.replacePassword({
            hash,
            now: at(1),
            generation: 0,
            session: newSession(at(7 * day + 1), at(1)),
            refreshTokenHash: newHash(),
          })

        const results = yield* Effect.all([change("first-hash"), change("second-hash")], {
          concurrency: "unbounded",
        })

        expect(results.filter(Option.isSome)).toHaveLength(1)
        const winner = results[0] !== undefined && Option.isSome(results[0]) ? "first-hash" : "second-hash"
        expect(yield* store.credentials).toEqual(Option.some({ hash: winner, generation: 1 }))
        expect(yield* store.listActiveSessions(at(2))).toHaveLength(1)
      }),
    )
  })

  describe("createSession", () => {
    it.effect("stores the session with its first, unrotated refresh token", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session, hash } = yield* storedSession(store)
        expect(yield* store.listActiveSessions(at(1))).toEqual([session])
        expect(yield* store.findRefreshToken(hash)).toEqual(
          Option.some({ sessionId: session.id, expiresAt: session.expiresAt, rotatedAt: null }),
        )
      }),
    )

    it.effect("stores nothing when the refresh token cannot be stored", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const existing = yield* storedSession(store)
        const session = newSession(at(7 * day))
        const error = yield* Effect.flip(store.createSession(session, existing.hash, 0))
        expect(error._tag).toBe("StorageError")
        expect(yield* store.isSessionActive(session.id, at(1))).toBe(false)
        expect(yield* store.listActiveSessions(at(1))).toEqual([existing.session])
      }),
    )

    it.effect("stores nothing when the password changed since the generation was read", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const before = yield* generation(store)
        yield* store.replacePassword({
          hash: "new-hash",
          now: at(1),
          generation: before,
          session: newSession(at(7 * day + 1), at(1)),
          refreshTokenHash: newHash(),
        })
        const late = newSession(at(7 * day + 2), at(2))
        const hash = newHash()

        expect(yield* store.createSession(late, hash, before)).toBe(false)
        expect(yield* store.isSessionActive(late.id, at(3))).toBe(false)
        expect(yield* store.findRefreshToken(hash)).toEqual(Option.none())
        expect(yield* store.createSession(late, hash, before + 1)).toBe(true)
      }),
    )

    it.effect("an insert racing an uncommitted password change waits for it and stores nothing", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const sql = yield* SqlClient.SqlClient
        const before = yield* generation(store)
        const revoked = yield* Deferred.make<void>()
        const commit = yield* Deferred.make<void>()
        // A change that has bumped the generation and revoked every session, not committed yet:
        // an insert committed now would escape its revocation unless it waits for the commit.
        const change = yield* Effect.fork(
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`UPDATE auth_owner SET credential_generation = credential_generation + 1 WHERE id = 1`
              yield* sql`UPDATE auth_sessions SET revoked_at = ${at(1)} WHERE revoked_at IS NULL`
              yield* Deferred.succeed(revoked, undefined)
              yield* Deferred.await(commit)
            }),
          ),
        )
        yield* Deferred.await(revoked)
        const late = newSession(at(7 * day + 2), at(2))
        const insert = yield* Effect.fork(store.createSession(late, newHash(), before))
        // On PostgreSQL, let the insert reach the database (it then waits on the owner row, or
        // finishes if nothing makes it wait); SQLite's single connection queues it anyway.
        const reachedDatabase = sql.onDialectOrElse({
          pg: () =>
            Effect.map(
              sql<{ readonly waiting: string }>`SELECT count(*) AS "waiting" FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              (rows) => Number(rows[0]?.waiting) > 0,
            ),
          orElse: () => Effect.succeed(true),
        })
        while (Option.isNone(yield* Fiber.poll(insert)) && !(yield* reachedDatabase)) yield* Effect.yieldNow()
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(change)

        expect(yield* Fiber.join(insert)).toBe(false)
        expect(yield* store.isSessionActive(late.id, at(3))).toBe(false)
      }),
    )
  })

  describe("rotateRefreshToken", () => {
    it.effect("returns the session id once, stores the successor and renews the session", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session, hash } = yield* storedSession(store)
        const nextHash = newHash()

        const rotated = yield* store.rotateRefreshToken({ hash, nextHash, now: at(day), expiresAt: at(8 * day) })

        expect(rotated).toEqual(Option.some(session.id))
        expect(yield* store.findRefreshToken(hash)).toEqual(
          Option.some({ sessionId: session.id, expiresAt: session.expiresAt, rotatedAt: at(day) }),
        )
        expect(yield* store.findRefreshToken(nextHash)).toEqual(
          Option.some({ sessionId: session.id, expiresAt: at(8 * day), rotatedAt: null }),
        )
        // The session now outlives its first 7 days.
        expect(yield* store.isSessionActive(session.id, at(7 * day + 1))).toBe(true)
        expect(yield* store.listActiveSessions(at(7 * day + 1))).toEqual([{ ...session, expiresAt: at(8 * day) }])
      }),
    )

    it.effect("a second rotation of the same token gives none", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { hash } = yield* storedSession(store)
        yield* store.rotateRefreshToken({ hash, nextHash: newHash(), now: at(1), expiresAt: at(7 * day + 1) })
        const secondNextHash = newHash()
        const again = yield* store.rotateRefreshToken({
          hash,
          nextHash: secondNextHash,
          now: at(2),
          expiresAt: at(7 * day + 2),
        })
        expect(again).toEqual(Option.none())
        expect(yield* store.findRefreshToken(secondNextHash)).toEqual(Option.none())
      }),
    )

    it.effect("an expired token gives none, from the instant it expires", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { hash } = yield* storedSession(store, at(10))
        const nextHash = newHash()
        const rotated = yield* store.rotateRefreshToken({ hash, nextHash, now: at(10), expiresAt: at(7 * day + 10) })
        expect(rotated).toEqual(Option.none())
        expect(yield* store.findRefreshToken(nextHash)).toEqual(Option.none())
        const token = yield* store.findRefreshToken(hash)
        expect(Option.map(token, (row) => row.rotatedAt)).toEqual(Option.some(null))
      }),
    )

    it.effect("a token of a revoked session gives none", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session, hash } = yield* storedSession(store)
        yield* store.revokeSession(session.id, at(1))
        const rotated = yield* store.rotateRefreshToken({
          hash,
          nextHash: newHash(),
          now: at(2),
          expiresAt: at(7 * day + 2),
        })
        expect(rotated).toEqual(Option.none())
        expect(yield* store.isSessionActive(session.id, at(2))).toBe(false)
      }),
    )

    it.effect("an unknown token gives none", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const rotated = yield* store.rotateRefreshToken({
          hash: newHash(),
          nextHash: newHash(),
          now: at(1),
          expiresAt: at(7 * day + 1),
        })
        expect(rotated).toEqual(Option.none())
      }),
    )

    it.effect("of 10 concurrent rotations of one token exactly one succeeds", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session, hash } = yield* storedSession(store)
        const nextHashes = Array.from({ length: 10 }, newHash)

        const results = yield* Effect.all(
          nextHashes.map((nextHash) =>
            store.rotateRefreshToken({ hash, nextHash, now: at(1), expiresAt: at(7 * day + 1) }),
          ),
          { concurrency: "unbounded" },
        )

        expect(results.filter(Option.isSome)).toEqual([Option.some(session.id)])
        const successors = yield* Effect.forEach(nextHashes, store.findRefreshToken)
        expect(successors.filter(Option.isSome)).toHaveLength(1)
      }),
    )
  })

  describe("findRefreshToken", () => {
    it.effect("finds a stored token by its hash and nothing for an unknown hash", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session, hash } = yield* storedSession(store)
        expect(yield* store.findRefreshToken(hash)).toEqual(
          Option.some({ sessionId: session.id, expiresAt: session.expiresAt, rotatedAt: null }),
        )
        expect(yield* store.findRefreshToken(newHash())).toEqual(Option.none())
      }),
    )
  })

  describe("isSessionActive", () => {
    it.effect("a session is active until it is revoked or expires", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const live = yield* storedSession(store, at(60))
        const revoked = yield* storedSession(store, at(60))
        yield* store.revokeSession(revoked.session.id, at(1))

        expect(yield* store.isSessionActive(live.session.id, at(59))).toBe(true)
        expect(yield* store.isSessionActive(live.session.id, at(60))).toBe(false)
        expect(yield* store.isSessionActive(revoked.session.id, at(2))).toBe(false)
        expect(yield* store.isSessionActive(crypto.randomUUID(), at(2))).toBe(false)
      }),
    )
  })

  describe("listActiveSessions", () => {
    it.effect("lists live sessions newest first, without revoked or expired ones", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const older = yield* storedSession(store, at(7 * day), at(0))
        const newer = yield* storedSession(store, at(7 * day + 5), at(5))
        const revoked = yield* storedSession(store, at(7 * day + 6), at(6))
        yield* storedSession(store, at(9), at(1))
        yield* store.revokeSession(revoked.session.id, at(7))

        expect(yield* store.listActiveSessions(at(10))).toEqual([newer.session, older.session])
      }),
    )
  })

  describe("revokeSession", () => {
    it.effect("revokes an active session once; false for a revoked, expired or unknown one", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const { session } = yield* storedSession(store)
        const expired = yield* storedSession(store, at(5))

        expect(yield* store.revokeSession(session.id, at(1))).toBe(true)
        expect(yield* store.revokeSession(session.id, at(2))).toBe(false)
        expect(yield* store.revokeSession(expired.session.id, at(5))).toBe(false)
        expect(yield* store.revokeSession(crypto.randomUUID(), at(2))).toBe(false)
      }),
    )
  })

  describe("revokeAllSessions", () => {
    it.effect("revokes every active session and returns their ids only", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const first = yield* storedSession(store)
        const second = yield* storedSession(store)
        const revoked = yield* storedSession(store)
        yield* storedSession(store, at(5))
        yield* store.revokeSession(revoked.session.id, at(1))

        const ids = yield* store.revokeAllSessions(at(10))

        expect([...ids].sort()).toEqual([first.session.id, second.session.id].sort())
        expect(yield* store.listActiveSessions(at(11))).toEqual([])
        expect(yield* store.revokeAllSessions(at(12))).toEqual([])
      }),
    )
  })

  describe("purgeSessions", () => {
    it.effect("deletes sessions expired or revoked before the cutoff, with their tokens", () =>
      Effect.gen(function* () {
        const store = yield* reset
        const live = yield* storedSession(store, at(7 * day))
        const expired = yield* storedSession(store, at(10))
        const revokedEarly = yield* storedSession(store)
        const revokedLate = yield* storedSession(store)
        yield* store.revokeSession(revokedEarly.session.id, at(5))
        yield* store.revokeSession(revokedLate.session.id, at(30))

        expect(yield* store.purgeSessions(at(20))).toBe(2)

        expect(yield* store.findRefreshToken(expired.hash)).toEqual(Option.none())
        expect(yield* store.findRefreshToken(revokedEarly.hash)).toEqual(Option.none())
        expect(Option.isSome(yield* store.findRefreshToken(revokedLate.hash))).toBe(true)
        expect(yield* store.listActiveSessions(at(31))).toEqual([live.session])
        expect(yield* store.purgeSessions(at(20))).toBe(0)
      }),
    )
  })

  describe("migrations", () => {
    it.effect("running them again applies nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const count = sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM aide_schema_migrations`
        const before = Number((yield* count)[0]?.n)
        yield* SqlMigrations.ensure(authSchema)
        expect(Number((yield* count)[0]?.n)).toBe(before)
      }),
    )
  })
}

// Each group takes its `it` from `layer(...)`: `it.layer` on the shared `it` would nest inside the
// layer collected before it (@effect/vitest re-binds the shared `it`), mixing the dialects.
describe("SqlAuthStore", () => {
  layer(SqlAuthStore.layer.pipe(Layer.provideMerge(tempSqliteStorageLayer)), { timeout: 30_000 })("SQLite", suite)

  describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
    layer(SqlAuthStore.layer.pipe(Layer.provideMerge(freshStorageLayer)), { timeout: 60_000 })(suite)
  })
})

layer(Layer.empty)("SqliteStorage", (it) => {
  it.scoped("opening the same file twice keeps the data and the applied migrations", () =>
    Effect.gen(function* () {
      const filename = Path.join(yield* tempDirectory, "aide.db")
      const open = <A, E>(use: Effect.Effect<A, E, AuthStore | SqlClient.SqlClient>) =>
        use.pipe(Effect.provide(SqlAuthStore.layer.pipe(Layer.provideMerge(SqliteStorage.layer({ filename })))))

      yield* open(Effect.flatMap(AuthStore, (store) => store.createOwner("hash", at(0))))
      const [hash, migrations] = yield* open(
        Effect.gen(function* () {
          const store = yield* AuthStore
          const sql = yield* SqlClient.SqlClient
          return [
            yield* store.credentials,
            yield* sql`SELECT migration_id FROM aide_schema_migrations WHERE schema_name = ${authSchema.name}`,
          ] as const
        }),
      )

      expect(hash).toEqual(Option.some({ hash: "hash", generation: 0 }))
      // Each migration once, none repeated by the second start.
      expect(migrations).toHaveLength(authSchema.migrations.length)
    }),
  )
})

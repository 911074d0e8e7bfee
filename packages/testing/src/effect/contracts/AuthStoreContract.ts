import { AuthStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { AuthStore } = Module
const at = (minutes: number) => new Date(Date.parse("2030-01-01T00:00:00.000Z") + minutes * 60_000).toISOString()
const session = (id: string, created = 0, expires = 60) => ({
  id,
  createdAt: at(created),
  expiresAt: at(expires),
  userAgent: "test",
  ip: "127.0.0.1",
})

/**
 * The contract of `AuthStore`: one owner, sessions only under the credential generation they
 * were verified against, refresh tokens rotated once, revocation and purge. Run it on your
 * store's Layer (a fresh store per test).
 */
export const authStoreContract = (name: string, store: Layer.Layer<Module.AuthStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("the owner is created once, at generation 0", () =>
      Effect.gen(function* () {
        const auth = yield* AuthStore
        expect(yield* auth.credentials).toEqual(Option.none())
        const created = yield* Effect.all([auth.createOwner("h1", at(0)), auth.createOwner("h2", at(0))], {
          concurrency: "unbounded",
        })
        expect(created.filter(Boolean)).toHaveLength(1)
        expect(Option.map(yield* auth.credentials, (c) => c.generation)).toEqual(Option.some(0))
      }),
    )

    it.effect("a password change bumps the generation, revokes every session, and stale sessions are refused", () =>
      Effect.gen(function* () {
        const auth = yield* AuthStore
        yield* auth.createOwner("h1", at(0))
        expect(yield* auth.createSession(session("s1"), "r1", 0)).toBe(true)
        const changed = yield* auth.replacePassword({
          hash: "h2",
          now: at(1),
          generation: 0,
          session: session("s2", 1),
          refreshTokenHash: "r2",
        })
        expect(changed).toEqual(Option.some(["s1"]))
        expect(yield* auth.credentials).toEqual(Option.some({ hash: "h2", generation: 1 }))
        // Verified against the old password: no session, no second change.
        expect(yield* auth.createSession(session("s3"), "r3", 0)).toBe(false)
        expect(
          yield* auth.replacePassword({
            hash: "h3",
            now: at(2),
            generation: 0,
            session: session("s4"),
            refreshTokenHash: "r4",
          }),
        ).toEqual(Option.none())
        expect((yield* auth.listActiveSessions(at(2))).map((s) => s.id)).toEqual(["s2"])
        expect(yield* auth.isSessionActive("s1", at(2))).toBe(false)
      }),
    )

    it.effect("a refresh token rotates once, renewing its session", () =>
      Effect.gen(function* () {
        const auth = yield* AuthStore
        yield* auth.createOwner("h", at(0))
        yield* auth.createSession(session("s"), "r1", 0)
        const rotate = (hash: string, next: string) =>
          auth.rotateRefreshToken({ hash, nextHash: next, now: at(5), expiresAt: at(90) })
        const results = yield* Effect.all([rotate("r1", "r2a"), rotate("r1", "r2b")], { concurrency: "unbounded" })
        expect(results.filter(Option.isSome)).toEqual([Option.some("s")])
        expect(Option.map(yield* auth.findRefreshToken("r1"), (t) => t.rotatedAt)).toEqual(Option.some(at(5)))
        expect((yield* auth.listActiveSessions(at(70))).map((s) => s.expiresAt)).toEqual([at(90)])
        expect(yield* rotate("missing", "x")).toEqual(Option.none())
      }),
    )

    it.effect("revocation ends active sessions only; purge deletes old ones with their tokens", () =>
      Effect.gen(function* () {
        const auth = yield* AuthStore
        yield* auth.createOwner("h", at(0))
        yield* auth.createSession(session("old", 0, 10), "r-old", 0)
        yield* auth.createSession(session("a", 1), "r-a", 0)
        yield* auth.createSession(session("b", 2), "r-b", 0)
        expect(yield* auth.revokeSession("a", at(20))).toBe(true)
        expect(yield* auth.revokeSession("a", at(20))).toBe(false)
        expect(yield* auth.revokeAllSessions(at(20))).toEqual(["b"])
        expect(yield* auth.purgeSessions(at(30))).toBe(3)
        expect(yield* auth.findRefreshToken("r-old")).toEqual(Option.none())
      }),
    )
  })

import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, TestClock } from "effect"
import * as Jose from "jose"
import * as HostAuth from "../../src/auth/HostAuth.js"

const secret = new TextEncoder().encode("a host application's HMAC secret, 32+ bytes")
const start = Date.parse("2026-01-01T08:00:00Z") / 1000

/** A host token of `sub` "ada" with exactly the claims given (times in seconds), none added. */
const token = (claims: Jose.JWTPayload) =>
  Effect.promise(() => new Jose.SignJWT({ sub: "ada", ...claims }).setProtectedHeader({ alg: "HS256" }).sign(secret))

const refused = (auth: ReturnType<typeof HostAuth.make>, candidate: string) =>
  Effect.map(Effect.either(auth.authenticate(candidate)), (result) => result._tag === "Left" && result.left._tag)

describe("HostAuth: every token ends", () => {
  it.effect("a token without exp is refused by default, even freshly issued", () =>
    Effect.gen(function* () {
      const auth = HostAuth.make({ key: Redacted.make(secret) })
      yield* TestClock.setTime(start * 1000)
      expect(yield* refused(auth, yield* token({ iat: start }))).toBe("Unauthenticated")
      expect(yield* refused(auth, yield* token({}))).toBe("Unauthenticated")
      expect(yield* auth.authenticate(yield* token({ iat: start, exp: start + 60 }))).toEqual({ sessionId: "ada" })
    }),
  )

  it.effect("with allowMissingExp, a token without exp lives maxLifetime from its iat, remembered or not", () =>
    Effect.gen(function* () {
      const auth = HostAuth.make({
        key: Redacted.make(secret),
        allowMissingExp: true,
        maxLifetime: "1 hour",
        clockTolerance: "5 seconds",
      })
      yield* TestClock.setTime(start * 1000)
      const remembered = yield* token({ iat: start })
      expect(yield* auth.authenticate(remembered)).toEqual({ sessionId: "ada" })
      // No iat: no way to tell its age. An iat in the future would stretch its life.
      expect(yield* refused(auth, yield* token({}))).toBe("Unauthenticated")
      expect(yield* refused(auth, yield* token({ iat: start + 3600 }))).toBe("Unauthenticated")
      yield* TestClock.setTime((start + 3600 + 4) * 1000)
      expect(yield* auth.authenticate(remembered)).toEqual({ sessionId: "ada" })
      yield* TestClock.setTime((start + 3600 + 6) * 1000)
      expect(yield* refused(auth, remembered)).toBe("Unauthenticated")
      // Checked anew (never remembered), the same rule.
      expect(yield* refused(auth, yield* token({ iat: start, jti: "another" }))).toBe("Unauthenticated")
    }),
  )

  it.effect("with maxLifetime, a token made to live longer is refused, and one without iat", () =>
    Effect.gen(function* () {
      const auth = HostAuth.make({ key: Redacted.make(secret), maxLifetime: "15 minutes" })
      yield* TestClock.setTime(start * 1000)
      expect(yield* refused(auth, yield* token({ iat: start, exp: start + 3600 }))).toBe("Unauthenticated")
      expect(yield* refused(auth, yield* token({ exp: start + 60 }))).toBe("Unauthenticated")
      expect(yield* refused(auth, yield* token({ iat: start }))).toBe("Unauthenticated")
      expect(yield* auth.authenticate(yield* token({ iat: start, exp: start + 900 }))).toEqual({ sessionId: "ada" })
    }),
  )

  it("allowMissingExp without a maxLifetime cannot be built", () => {
    expect(() => HostAuth.make({ key: Redacted.make(secret), allowMissingExp: true })).toThrow(
      expect.objectContaining({ _tag: "HostAuthOptionsError", message: expect.stringMatching(/maxLifetime/) }),
    )
    expect(() => HostAuth.make({ key: Redacted.make(secret), maxLifetime: 0 })).toThrow(
      expect.objectContaining({ _tag: "HostAuthOptionsError" }),
    )
  })
})

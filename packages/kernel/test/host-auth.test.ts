import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, TestClock } from "effect"
import * as Jose from "jose"
import * as HostAuth from "../src/auth/HostAuth.js"

const secret = new TextEncoder().encode("a host application's HMAC secret, 32+ bytes")
const start = Date.parse("2026-01-01T08:00:00Z")

/** A host token issued at `start`, expiring a minute later. */
const token = (claims: Jose.JWTPayload = { sub: "ada" }) =>
  Effect.promise(() =>
    new Jose.SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(start / 1000)
      .setExpirationTime(start / 1000 + 60)
      .sign(secret),
  )

describe("HostAuth", () => {
  it.effect("a token is accepted until its exp plus the tolerance, whether remembered or checked anew", () =>
    Effect.gen(function* () {
      const auth = HostAuth.make({ key: Redacted.make(secret), clockTolerance: "5 seconds" })
      yield* TestClock.setTime(start + 30_000)
      const ada = yield* token()
      expect(yield* auth.authenticate(ada)).toEqual({ sessionId: "ada" })
      // Remembered, past exp but within the tolerance: still accepted; past both: refused.
      yield* TestClock.setTime(start + 63_000)
      expect(yield* auth.authenticate(ada)).toEqual({ sessionId: "ada" })
      const bob = yield* token({ sub: "bob" })
      expect(yield* auth.authenticate(bob)).toEqual({ sessionId: "bob" })
      yield* TestClock.setTime(start + 66_000)
      for (const expired of [ada, bob, yield* token({ sub: "carol" })]) {
        expect((yield* Effect.either(auth.authenticate(expired)))._tag).toBe("Left")
      }
    }),
  )

  it.effect("refuses oversized, unsigned and foreign tokens with Unauthenticated", () =>
    Effect.gen(function* () {
      const auth = HostAuth.make({ key: Redacted.make(secret), issuer: "https://id.example.com" })
      yield* TestClock.setTime(start)
      const unsigned = new Jose.UnsecuredJWT({ sub: "ada" }).setExpirationTime(start / 1000 + 60).encode()
      const wrongIssuer = yield* token()
      for (const candidate of ["x".repeat(10_000), unsigned, wrongIssuer, "", "not.a.jwt"]) {
        const result = yield* Effect.either(auth.authenticate(candidate))
        expect(result._tag === "Left" && result.left._tag).toBe("Unauthenticated")
      }
    }),
  )

  it("needs exactly one key source", () => {
    expect(() => HostAuth.make({})).toThrow(expect.objectContaining({ _tag: "HostAuthOptionsError" }))
    expect(() =>
      HostAuth.make({ key: Redacted.make(secret), jwksUrl: "https://id.example.com/.well-known/jwks.json" }),
    ).toThrow(expect.objectContaining({ _tag: "HostAuthOptionsError" }))
  })
})

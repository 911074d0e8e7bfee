import { statSync } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as SigningSecret from "../src/auth/SigningSecret.js"
import { tempDirectory } from "./support/files.js"

const bytes = (secret: Redacted.Redacted<Uint8Array>) => Buffer.from(Redacted.value(secret)).toString("hex")

describe("loadOrCreate", () => {
  it.scoped("creates a 32-byte secret in a file only its owner can read or write", () =>
    Effect.gen(function* () {
      const file = Path.join(yield* tempDirectory, "nested", "jwt-secret")
      const secret = yield* SigningSecret.loadOrCreate(file)
      expect(Redacted.value(secret).byteLength).toBe(32)
      expect(statSync(file).mode & 0o777).toBe(0o600)
    }),
  )

  it.scoped("returns the same secret on the next call", () =>
    Effect.gen(function* () {
      const file = Path.join(yield* tempDirectory, "jwt-secret")
      const first = yield* SigningSecret.loadOrCreate(file)
      const second = yield* SigningSecret.loadOrCreate(file)
      expect(bytes(second)).toBe(bytes(first))
    }),
  )

  it.scoped("concurrent first calls agree on one secret and leave only its file behind", () =>
    Effect.gen(function* () {
      const directory = yield* tempDirectory
      const file = Path.join(directory, "jwt-secret")
      const secrets = yield* Effect.all(
        Array.from({ length: 10 }, () => SigningSecret.loadOrCreate(file)),
        { concurrency: "unbounded" },
      )
      expect(new Set(secrets.map(bytes)).size).toBe(1)
      expect(bytes(secrets[0]!)).toBe(bytes(yield* SigningSecret.loadOrCreate(file)))
      expect(yield* Effect.promise(() => Fs.readdir(directory))).toEqual(["jwt-secret"])
    }),
  )

  it.scoped("a file holding fewer than 32 bytes is refused", () =>
    Effect.gen(function* () {
      const file = Path.join(yield* tempDirectory, "jwt-secret")
      yield* Effect.promise(() => Fs.writeFile(file, Buffer.alloc(31, 1).toString("base64url"), { mode: 0o600 }))
      const error = yield* Effect.flip(SigningSecret.loadOrCreate(file))
      expect(error._tag).toBe("SigningSecretError")
    }),
  )
})

describe("fromString", () => {
  it.effect("refuses fewer than 32 bytes", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(SigningSecret.fromString("x".repeat(31)))
      expect(error._tag).toBe("SigningSecretError")
    }),
  )

  it.effect("counts UTF-8 bytes, not characters", () =>
    Effect.gen(function* () {
      // 16 characters of 2 bytes each: 32 bytes.
      const secret = yield* SigningSecret.fromString("é".repeat(16))
      expect(Redacted.value(secret).byteLength).toBe(32)
    }),
  )

  it.effect("accepts 32 bytes and keeps them as given", () =>
    Effect.gen(function* () {
      const text = "0123456789abcdef0123456789abcdef"
      const secret = yield* SigningSecret.fromString(text)
      expect(new TextDecoder().decode(Redacted.value(secret))).toBe(text)
    }),
  )
})

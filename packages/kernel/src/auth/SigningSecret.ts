import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { Effect, Redacted, Schema } from "effect"

export class SigningSecretError extends Schema.TaggedError<SigningSecretError>()("SigningSecretError", {
  message: Schema.String,
}) {}

const minimumBytes = 32

/** A secret given as text (e.g. `AIDE_JWT_SECRET`): its UTF-8 bytes, at least 32 of them. */
export const fromString = (secret: string): Effect.Effect<Redacted.Redacted<Uint8Array>, SigningSecretError> => {
  const bytes = new TextEncoder().encode(secret)
  return bytes.byteLength >= minimumBytes
    ? Effect.succeed(Redacted.make(bytes))
    : Effect.fail(new SigningSecretError({ message: `the signing secret must be at least ${minimumBytes} bytes` }))
}

/**
 * The secret kept in `file`: read if it exists, otherwise 256 random bits written there with
 * mode 0600 (created exclusively, so two processes starting together agree on one secret).
 */
export const loadOrCreate = (file: string): Effect.Effect<Redacted.Redacted<Uint8Array>, SigningSecretError> =>
  Effect.tryPromise({
    try: async () => {
      await Fs.mkdir(Path.dirname(file), { recursive: true, mode: 0o700 })
      try {
        // Written aside, then linked into place: the link fails when the file exists, and a process
        // starting at the same time never reads it half-written.
        const temporary = `${file}.${process.pid}.${Crypto.randomBytes(6).toString("hex")}.tmp`
        await Fs.writeFile(temporary, Crypto.randomBytes(minimumBytes).toString("base64url"), {
          mode: 0o600,
          flag: "wx",
        })
        try {
          await Fs.link(temporary, file)
        } finally {
          await Fs.rm(temporary, { force: true })
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const text = (await Fs.readFile(file, "utf8")).trim()
      return Buffer.from(text, "base64url")
    },
    catch: (cause) =>
      new SigningSecretError({ message: `cannot read or create the signing secret ${file}: ${String(cause)}` }),
  }).pipe(
    Effect.filterOrFail(
      (bytes) => bytes.byteLength >= minimumBytes,
      () => new SigningSecretError({ message: `the signing secret in ${file} is shorter than ${minimumBytes} bytes` }),
    ),
    Effect.map((bytes) => Redacted.make(new Uint8Array(bytes))),
  )

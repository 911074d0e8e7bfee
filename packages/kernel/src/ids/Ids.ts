import * as Crypto from "node:crypto"
import { Context, Effect, Layer } from "effect"

/**
 * The one place identifiers and secrets come from. Everything random in the kernel goes
 * through this service, so tests can swap it and audits have one module to read.
 */
export class Ids extends Context.Tag("@aide/kernel/Ids")<
  Ids,
  {
    /** A random UUID v4. */
    readonly uuid: Effect.Effect<string>
    /** `bytes` bytes from the CSPRNG, base64url-encoded (no padding). */
    readonly secret: (bytes: number) => Effect.Effect<string>
  }
>() {}

/** Node's CSPRNG (`crypto.randomUUID`, `crypto.randomBytes`). */
export const layer: Layer.Layer<Ids> = Layer.succeed(Ids, {
  uuid: Effect.sync(() => Crypto.randomUUID()),
  secret: (bytes) => Effect.sync(() => Crypto.randomBytes(bytes).toString("base64url")),
})

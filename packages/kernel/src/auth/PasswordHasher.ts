import type * as Argon2 from "argon2"
import { Context, Effect, Layer } from "effect"

// Loaded on first use (~15 ms of native module loading): most processes start, and most
// requests run, without hashing a password. It is an optional peer of the kernel: a kernel that
// never hashes one (host auth, a plugin's tests) needs it neither installed nor loaded.
let argon2: Promise<typeof Argon2> | undefined
const loadArgon2 = () => {
  argon2 ??= import("argon2").catch((cause: unknown) => {
    argon2 = undefined
    const code = (cause as { readonly code?: unknown }).code
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw cause
    throw new Error(
      "PasswordHasher.layer hashes with argon2 (an optional peer of @aide/kernel), not installed: npm i argon2@0.44.0",
      { cause },
    )
  })
  return argon2
}

/** Hashes and verifies the owner's password. Swap the Layer to trade cost for speed (tests). */
export class PasswordHasher extends Context.Tag("@aide/kernel/PasswordHasher")<
  PasswordHasher,
  {
    /** A PHC string (`$argon2id$v=19$m=…`), salt included. */
    readonly hash: (password: string) => Effect.Effect<string>
    /** Constant-time check of `password` against a stored PHC string; false for a malformed hash. */
    readonly verify: (hash: string, password: string) => Effect.Effect<boolean>
  }
>() {}

export interface Argon2Params {
  /** KiB of memory per hash. */
  readonly memoryCost: number
  /** Iterations. */
  readonly timeCost: number
  readonly parallelism: number
}

/** OWASP's argon2id minimum (m=19456 KiB, t=2, p=1): ~30 ms per hash on a 2-core machine. */
export const owasp: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 }

/** The cheapest argon2id parameters the library accepts: for tests only. */
export const testParams: Argon2Params = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

/** argon2id with the given parameters. Verification reads the parameters from the stored hash. */
export const layerWith = (params: Argon2Params): Layer.Layer<PasswordHasher> =>
  Layer.succeed(PasswordHasher, {
    hash: (password) =>
      Effect.promise(() => loadArgon2().then((a) => a.hash(password, { type: a.argon2id, ...params }))),
    verify: (hash, password) =>
      Effect.tryPromise(() => loadArgon2().then((a) => a.verify(hash, password))).pipe(
        Effect.orElseSucceed(() => false),
      ),
  })

/** argon2id with OWASP parameters. */
export const layer: Layer.Layer<PasswordHasher> = layerWith(owasp)

/** argon2id at minimal cost, so test suites stay fast. Never use it in production. */
export const layerTest: Layer.Layer<PasswordHasher> = layerWith(testParams)

/**
 * Embedding the kernel: the default composition with two Layers swapped — an in-memory SQLite
 * database and a password hasher of our own — then the owner's whole auth lifecycle, no HTTP.
 *
 * Run: `pnpm --filter @aide/example-embed-kernel start`
 */

import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Auth, Kernel, PasswordHasher, SqliteStorage } from "@aide/kernel"
import { Effect, Layer } from "effect"

/** Our own hasher: argon2id, but counting how often it runs (e.g. to export a metric). */
export const countingHasher = (counter: { hashes: number }) =>
  Layer.effect(
    PasswordHasher.PasswordHasher,
    Effect.map(PasswordHasher.PasswordHasher, (inner) => ({
      hash: (password: string) => Effect.tap(inner.hash(password), () => Effect.sync(() => counter.hashes++)),
      verify: inner.verify,
    })),
  ).pipe(Layer.provide(PasswordHasher.layerTest))

export const program = Effect.gen(function* () {
  const auth = yield* Auth.Auth
  const device = { userAgent: "embed-example", ip: "127.0.0.1" }
  const first = yield* auth.setup("correct horse battery staple", device)
  const principal = yield* auth.authenticate(first.token)
  const rotated = yield* auth.refresh(first.refreshToken)
  const sessions = yield* auth.listSessions(principal)
  yield* auth.logout(principal)
  const afterLogout = yield* Effect.either(auth.authenticate(rotated.token))
  return { sessions: sessions.length, loggedOut: afterLogout._tag === "Left" }
})

export const run = () => {
  const counter = { hashes: 0 }
  const kernel = Kernel.layer({
    dataDir: mkdtempSync(join(tmpdir(), "aide-embed-")),
    storage: SqliteStorage.layer({ filename: ":memory:" }),
    passwordHasher: countingHasher(counter),
  })
  return Effect.runPromise(Effect.provide(program, kernel)).then((result) => ({ ...result, hashes: counter.hashes }))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((result) => console.log(result))
}

// Cost of `Auth.authenticate` per request: the kernel's own Auth (HS256 access token + session
// cache) against `HostAuth` verifying the host's JWTs (HS256 key; ES256 through a JWKS).
// In-process, no HTTP: `node --import tsx bench/host-auth.mjs` (BENCH_CALLS, default 20000).
// 2026-11-27, load average ≈ 17 on 2 shared cores: own Auth 17.5 µs/call; HostAuth HS256 key
// 14.7 µs/call (first sight of a token ≈ 1.9 ms, warm-up included), ES256 JWKS 10.7 µs/call
// (first sight ≈ 1.0 ms). Without the verified-token cache HostAuth paid 391 / 749 µs per call.
import { Auth, HostAuth, Kernel, PasswordHasher, SqliteStorage } from "../packages/kernel/src/index.ts"
import { importFrom } from "./harness.mjs"

const { Effect, Redacted } = await importFrom("kernel", "effect")
const Jose = await importFrom("kernel", "jose")

const calls = Number(process.env.BENCH_CALLS ?? 20_000)

/** `tokens()` makes a fresh token: the first sight of each costs a signature check. */
const measure = (label, authLayer, token, tokens) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const fresh = []
    for (let i = 0; i < 500; i++) fresh.push(yield* Effect.promise(tokens))
    const firstStart = performance.now()
    for (const each of fresh) yield* auth.authenticate(each)
    const first = ((performance.now() - firstStart) * 1000) / fresh.length
    const principal = yield* auth.authenticate(token)
    for (let i = 0; i < 1000; i++) yield* auth.authenticate(token)
    const start = performance.now()
    for (let i = 0; i < calls; i++) yield* auth.authenticate(token)
    const micros = ((performance.now() - start) * 1000) / calls
    console.log(
      `${label.padEnd(34)} ${micros.toFixed(1).padStart(7)} µs/call, first sight of a token ${first.toFixed(0)} µs (session ${principal.sessionId})`,
    )
  }).pipe(
    Effect.provide(
      Kernel.layer({
        storage: SqliteStorage.layer({ filename: ":memory:" }),
        signingSecret: Redacted.make(new Uint8Array(32).fill(1)),
        passwordHasher: PasswordHasher.layerTest,
        scheduler: { enabled: false },
        ...(authLayer === undefined ? {} : { authLayer }),
      }),
    ),
    Effect.scoped,
  )

const ownToken = Effect.flatMap(Auth.Auth, (auth) =>
  auth.setup("correct horse battery staple", { userAgent: "bench", ip: "127.0.0.1" }),
)
const own = await Effect.runPromise(
  Effect.gen(function* () {
    const pair = yield* ownToken
    const auth = yield* Auth.Auth
    for (let i = 0; i < 1000; i++) yield* auth.authenticate(pair.token)
    const start = performance.now()
    for (let i = 0; i < calls; i++) yield* auth.authenticate(pair.token)
    return ((performance.now() - start) * 1000) / calls
  }).pipe(
    Effect.provide(
      Kernel.layer({
        storage: SqliteStorage.layer({ filename: ":memory:" }),
        signingSecret: Redacted.make(new Uint8Array(32).fill(1)),
        passwordHasher: PasswordHasher.layerTest,
        scheduler: { enabled: false },
      }),
    ),
    Effect.scoped,
  ),
)
console.log(`${"Auth.layer (HS256, own sessions)".padEnd(34)} ${own.toFixed(1).padStart(7)} µs/call`)

const secret = new TextEncoder().encode("a host application's HMAC secret, 32+ bytes")
let n = 0
const hs = () =>
  new Jose.SignJWT({ sid: `device-${n++}` })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("u")
    .setExpirationTime("1h")
    .sign(secret)
await Effect.runPromise(measure("HostAuth key (HS256)", HostAuth.layer({ key: Redacted.make(secret) }), await hs(), hs))

const { publicKey, privateKey } = await Jose.generateKeyPair("ES256")
const jwk = { ...(await Jose.exportJWK(publicKey)), kid: "k1", alg: "ES256" }
const es = () =>
  new Jose.SignJWT({ sid: `device-${n++}` })
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setSubject("u")
    .setExpirationTime("1h")
    .sign(privateKey)
await Effect.runPromise(measure("HostAuth jwks (ES256)", HostAuth.layer({ jwks: { keys: [jwk] } }), await es(), es))

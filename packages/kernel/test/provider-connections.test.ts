import { randomBytes } from "node:crypto"
import { until } from "@aide/testing/effect"
import { expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Redacted, TestClock } from "effect"
import * as ConnectionCipher from "../src/models/connections/ConnectionCipher.js"
import { ConnectionStore } from "../src/models/connections/ConnectionStore.js"
import * as MemoryConnectionStore from "../src/models/connections/MemoryConnectionStore.js"
import * as ProviderConnections from "../src/models/connections/ProviderConnections.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as ReplicaSignals from "../src/replicas/ReplicaSignals.js"

const secret = Redacted.make(new Uint8Array(randomBytes(32)))
const values = { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_COMPATIBLE_API_KEY: "sk-replicated" }

/**
 * One replica's connections and model registry, over the `shared` store and signals: two of them
 * in one process stand for two servers on one database and one Redis.
 */
const replica = (shared: Context.Context<ConnectionStore | ReplicaSignals.ReplicaSignals>) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      ProviderConnections.layer({ secret }).pipe(
        Layer.provideMerge(ModelRegistry.layer({ env: {} })),
        Layer.provide(Layer.succeedContext(shared)),
      ),
    )
    const registry = Context.get(context, ModelRegistry.ModelRegistry)
    const configured = Effect.map(
      Effect.either(registry.languageModel({ provider: "openai-compatible", model: "m" })),
      Either.isRight,
    )
    return { connections: Context.get(context, ProviderConnections.ProviderConnections), configured }
  })

const twoReplicas = Effect.gen(function* () {
  const shared = yield* Layer.build(Layer.merge(MemoryConnectionStore.layer, ReplicaSignals.layerLocal))
  return { store: Context.get(shared, ConnectionStore), a: yield* replica(shared), b: yield* replica(shared) }
})

it.scoped("a connection set on one replica configures the other's registry; its removal unconfigures it", () =>
  Effect.gen(function* () {
    const { a, b } = yield* twoReplicas
    expect(yield* b.configured).toBe(false)
    yield* a.connections.set("openai-compatible", values)
    yield* until(b.configured, "B configured by A's connection")
    expect(yield* b.connections.list).toEqual([
      expect.objectContaining({ provider: "openai-compatible", readable: true }),
    ])
    expect(yield* a.connections.remove("openai-compatible")).toBe(true)
    yield* until(
      Effect.map(b.configured, (on) => !on),
      "B unconfigured by A's removal",
    )
  }),
)

it.scoped(
  "a change whose signal was lost shows at the periodic re-read; one sealed under another secret unconfigures",
  () =>
    Effect.gen(function* () {
      const { store, b } = yield* twoReplicas
      // Written behind the replicas' backs: no signal.
      yield* store.put(
        "openai-compatible",
        ConnectionCipher.make(secret).seal("openai-compatible", JSON.stringify(values)),
      )
      expect(yield* b.configured).toBe(false)
      yield* TestClock.adjust(ProviderConnections.safetyNetInterval)
      yield* until(b.configured, "B configured at the re-read")

      const other = ConnectionCipher.make(Redacted.make(new Uint8Array(randomBytes(32))))
      yield* store.put("openai-compatible", other.seal("openai-compatible", JSON.stringify(values)))
      yield* TestClock.adjust(ProviderConnections.safetyNetInterval)
      yield* until(
        Effect.map(b.configured, (on) => !on),
        "B unconfigured by a value it cannot open",
      )
      expect(yield* b.connections.list).toEqual([
        expect.objectContaining({ provider: "openai-compatible", readable: false }),
      ])
    }),
)

it("a sealed value opens only whole: altered, truncated tag, other provider or other secret → undefined", () => {
  const cipher = ConnectionCipher.make(secret)
  const sealed = cipher.seal("openai", "sk-whole")
  expect(cipher.open("openai", sealed)).toBe("sk-whole")
  const [version, nonce, body, tag] = sealed.split(".") as [string, string, string, string]
  const truncated = Buffer.from(tag, "base64url").subarray(0, 4).toString("base64url")
  expect(cipher.open("openai", [version, nonce, body, truncated].join("."))).toBeUndefined()
  const flipped = Buffer.from(body, "base64url")
  flipped[0] = flipped[0]! ^ 1
  expect(cipher.open("openai", [version, nonce, flipped.toString("base64url"), tag].join("."))).toBeUndefined()
  expect(cipher.open("groq", sealed)).toBeUndefined()
  expect(ConnectionCipher.make(Redacted.make(new Uint8Array(randomBytes(32)))).open("openai", sealed)).toBeUndefined()
})

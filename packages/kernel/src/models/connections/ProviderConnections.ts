import { Context, Duration, Effect, Layer, type Redacted, Schema } from "effect"
import { followRereads } from "../../replicas/ReplicaSignals.js"
import type { StorageError } from "../../storage/StorageError.js"
import { ModelRegistry } from "../ModelRegistry.js"
import * as ConnectionCipher from "./ConnectionCipher.js"
import { ConnectionStore } from "./ConnectionStore.js"
import { checkValues, InvalidConnection, mask } from "./connectionValues.js"

/** The host's environment sets one of the provider's variables: it wins, the console cannot edit it. */
export class ConnectionSetByEnvironment extends Schema.TaggedError<ConnectionSetByEnvironment>()(
  "ConnectionSetByEnvironment",
  { provider: Schema.String, message: Schema.String },
) {}

/** What the API shows of a connection: which variables are set, masked, never a value. */
export interface ConnectionSummary {
  readonly provider: string
  /** Each variable set, with at most the last 4 characters of its value (`••••abcd`). */
  readonly variables: ReadonlyArray<{ readonly name: string; readonly hint: string }>
  readonly updatedAt: Date
  /** False when the stored values do not open with this server's secret (it changed): set them again. */
  readonly readable: boolean
  /** The host's environment sets the provider: the connection is ignored while it does. */
  readonly setByEnvironment: boolean
}

/**
 * The owner's provider connections: a provider's variables (`OPENAI_API_KEY`, or an
 * OpenAI-compatible `…_BASE_URL` and key) given from the console instead of the host's
 * environment, sealed at rest (`ConnectionCipher`) and handed to the `ModelRegistry` at once.
 */
export class ProviderConnections extends Context.Tag("@aide/kernel/ProviderConnections")<
  ProviderConnections,
  {
    readonly list: Effect.Effect<ReadonlyArray<ConnectionSummary>, StorageError>
    /** Replaces the provider's connection with `values` (only its declared variables, bounded). */
    readonly set: (
      provider: string,
      values: Readonly<Record<string, string>>,
    ) => Effect.Effect<ConnectionSummary, StorageError | InvalidConnection | ConnectionSetByEnvironment>
    /** Drops the provider's connection: whether there was one. */
    readonly remove: (provider: string) => Effect.Effect<boolean, StorageError | InvalidConnection>
  }
>() {}

export interface Options {
  /** The server's secret the sealing key is derived from (the access-token signing secret); never stored with the data. */
  readonly secret: Redacted.Redacted<Uint8Array>
}

const parse = (text: string | undefined): Record<string, string> | undefined => {
  if (text === undefined) return undefined
  const value: unknown = JSON.parse(text)
  return typeof value === "object" && value !== null ? (value as Record<string, string>) : undefined
}

/** The channel of connection changes: the message is the provider id, receivers re-read the store. */
export const channel = "aide.connections.changed"

/** The periodic re-read with several replicas: a change whose message was lost shows within this. */
export const safetyNetInterval = Duration.seconds(15)

export const make = (options: Options) =>
  Effect.gen(function* () {
    const store = yield* ConnectionStore
    const registry = yield* ModelRegistry
    const cipher = ConnectionCipher.make(options.secret)
    const connect = registry.connect
    const connectable = registry.connectable
    const unsupported = new InvalidConnection({ message: "this server's model registry takes no connections" })

    const summary = (provider: string, updatedAt: Date, values: Record<string, string> | undefined) => ({
      provider,
      variables: Object.entries(values ?? {}).map(([name, value]) => ({ name, hint: mask(value) })),
      updatedAt,
      readable: values !== undefined,
      setByEnvironment: connectable?.(provider)?.setByEnvironment ?? false,
    })

    // What the registry has of each provider, as the sealed text it came from: a re-read hands
    // the registry only what changed (handing it a provider drops its cached clients and model
    // list). One writer at a time, so an older read is never applied over a newer one.
    const applied = new Map<string, string>()
    const writer = yield* Effect.makeSemaphore(1)
    const hand = (provider: string, values: Readonly<Record<string, string>> | undefined) =>
      connect === undefined ? Effect.void : connect(provider, values).pipe(Effect.catchAll(() => Effect.void))

    // A connection that does not open is reported by provider (never a value), listed as
    // unreadable, and unconfigures its provider here.
    const apply = (provider: string, sealed: string | undefined) =>
      Effect.suspend(() => {
        if (applied.get(provider) === sealed) return Effect.void
        if (sealed === undefined) {
          applied.delete(provider)
          return hand(provider, undefined)
        }
        applied.set(provider, sealed)
        const values = parse(cipher.open(provider, sealed))
        if (values !== undefined) return hand(provider, values)
        return Effect.zipRight(
          Effect.logWarning(
            `the connection of provider ${provider} does not open with this server's secret (was AIDE_JWT_SECRET or jwt-secret changed?): set it again in Settings`,
          ),
          hand(provider, undefined),
        )
      })

    const load = writer.withPermits(1)(
      Effect.gen(function* () {
        const rows = yield* store.list
        for (const row of rows) yield* apply(row.provider, row.sealed)
        const kept = new Set(rows.map((row) => row.provider))
        for (const provider of [...applied.keys()]) if (!kept.has(provider)) yield* apply(provider, undefined)
      }),
    )

    // At start every stored connection goes to the registry (a store that cannot be read fails
    // the start). With several replicas, a change made on another one reaches this one by its
    // signal (Redis or PostgreSQL), at once, or by the periodic re-read: the chat path never
    // reads the store.
    yield* load
    const announce = yield* followRereads(
      channel,
      load.pipe(
        Effect.catchAll((error) => Effect.logWarning("provider connections could not be re-read", error.message)),
      ),
      safetyNetInterval,
    )

    const list = Effect.map(store.list, (rows) =>
      rows.map((row) => summary(row.provider, row.updatedAt, parse(cipher.open(row.provider, row.sealed)))),
    )

    const set = Effect.fn("ProviderConnections.set")(function* (
      provider: string,
      values: Readonly<Record<string, string>>,
    ) {
      if (connect === undefined || connectable === undefined) return yield* unsupported
      const rules = connectable(provider)
      if (rules === undefined) return yield* new InvalidConnection({ message: `unknown provider ${provider}` })
      if (rules.setByEnvironment) {
        return yield* new ConnectionSetByEnvironment({
          provider,
          message: `provider ${provider} is set by the server's environment, which wins: change it there`,
        })
      }
      const checked = yield* checkValues(provider, rules, values)
      const row = yield* writer.withPermits(1)(
        Effect.gen(function* () {
          const row = yield* store.put(provider, cipher.seal(provider, JSON.stringify(checked)))
          applied.set(provider, row.sealed)
          yield* connect(provider, checked).pipe(Effect.orDie)
          return row
        }),
      )
      // Sent before the answer: once the owner sees it saved, every replica has been told.
      yield* announce(provider)
      return summary(provider, row.updatedAt, checked)
    })

    const remove = Effect.fn("ProviderConnections.remove")(function* (provider: string) {
      if (connect === undefined || connectable?.(provider) === undefined)
        return yield* new InvalidConnection({ message: `unknown provider ${provider}` })
      const removed = yield* writer.withPermits(1)(
        Effect.gen(function* () {
          const removed = yield* store.remove(provider)
          applied.delete(provider)
          yield* connect(provider, undefined).pipe(Effect.orDie)
          return removed
        }),
      )
      if (removed) yield* announce(provider)
      return removed
    })

    return ProviderConnections.of({ list, set, remove })
  })

/**
 * Needs the `ConnectionStore` and the `ModelRegistry` the chat uses; with a `ReplicaSignals` in
 * context (several replicas), follows the changes the other replicas make.
 */
export const layer = (
  options: Options,
): Layer.Layer<ProviderConnections, StorageError, ConnectionStore | ModelRegistry> =>
  Layer.scoped(ProviderConnections, make(options))

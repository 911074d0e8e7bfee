import { Clock, Context, Effect, Layer, Ref } from "effect"
import type { StorageError } from "../storage/StorageError.js"

/** A stored document the server could not use, kept aside with why (`config_rejected`). */
export interface RejectedConfig {
  /** The stored text, exactly as it was. */
  readonly document: string
  readonly reason: string
  /** ISO 8601. */
  readonly rejectedAt: string
}

/**
 * Persistence of the stored config document (only what the owner set, not the defaults), as
 * the JSON text it is stored as: the store never parses it, so no stored row, however broken,
 * can fail a read (`AppConfig` decides what to make of it).
 * `update` is the only write: a read-modify-write that other writers (other replicas sharing
 * the database) cannot interleave with, and that stores nothing when `f` fails.
 * `configStoreContract` of `@aide/testing/effect` checks the rules stated on each method.
 */
export class ConfigStore extends Context.Tag("@aide/kernel/ConfigStore")<
  ConfigStore,
  {
    /** The stored text; `{}` when nothing was ever stored. */
    readonly load: Effect.Effect<string, StorageError>
    /**
     * Hands `f` the stored text (`{}` the first time) and stores exactly what it returns, even
     * text that is not JSON, answering it. Concurrent updates run one after the other (no write
     * is lost); when `f` fails, nothing is stored and `update` fails with `f`'s error as is.
     */
    readonly update: <E>(f: (stored: string) => Effect.Effect<string, E>) => Effect.Effect<string, E | StorageError>
    /**
     * Keeps `document` aside as rejected, unless the very same text already is (the first
     * reason and time stay). `rejectedAt` is the time of Effect's `Clock` as an ISO 8601 string
     * (`toISOString()`). It does not change the stored document. Inside `update`, it is part of
     * the same transaction.
     */
    readonly setAside: (document: string, reason: string) => Effect.Effect<void, StorageError>
    /** What was set aside, oldest first; `[]` at first. */
    readonly rejected: Effect.Effect<ReadonlyArray<RejectedConfig>, StorageError>
  }
>() {}

/** In memory, for tests and embedders without storage; starts from `initial` (default `{}`). */
export const makeMemory = (initial = "{}") =>
  Effect.gen(function* () {
    const ref = yield* Ref.make(initial)
    const rejected = yield* Ref.make<ReadonlyArray<RejectedConfig>>([])
    // One writer at a time, like the database's row lock.
    const lock = yield* Effect.makeSemaphore(1)
    return ConfigStore.of({
      load: Ref.get(ref),
      update: (f) =>
        lock.withPermits(1)(Effect.flatMap(Ref.get(ref), f).pipe(Effect.tap((next) => Ref.set(ref, next)))),
      setAside: (document, reason) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.update(rejected, (all) =>
            all.some((entry) => entry.document === document)
              ? all
              : [...all, { document, reason, rejectedAt: new Date(now).toISOString() }],
          ),
        ),
      rejected: Ref.get(rejected),
    })
  })

export const layerMemory: Layer.Layer<ConfigStore> = Layer.effect(ConfigStore, makeMemory())

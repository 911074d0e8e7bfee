import { Context, Effect, Layer, Ref } from "effect"
import type { StorageError } from "../storage/StorageError.js"
import type { JsonObject } from "./MergePatch.js"

/**
 * Persistence of the stored config document (only what the owner set, not the defaults).
 * `update` is the only write: a read-modify-write that other writers (other replicas sharing
 * the database) cannot interleave with, and that stores nothing when `f` fails.
 */
export class ConfigStore extends Context.Tag("@aide/kernel/ConfigStore")<
  ConfigStore,
  {
    readonly load: Effect.Effect<JsonObject, StorageError>
    readonly update: <E>(
      f: (stored: JsonObject) => Effect.Effect<JsonObject, E>,
    ) => Effect.Effect<JsonObject, E | StorageError>
  }
>() {}

/** In memory, for tests and embedders without storage; starts from `initial` (default empty). */
export const makeMemory = (initial: JsonObject = {}) =>
  Effect.gen(function* () {
    const ref = yield* Ref.make(initial)
    // One writer at a time, like the database's row lock.
    const lock = yield* Effect.makeSemaphore(1)
    return ConfigStore.of({
      load: Ref.get(ref),
      update: (f) =>
        lock.withPermits(1)(Effect.flatMap(Ref.get(ref), f).pipe(Effect.tap((next) => Ref.set(ref, next)))),
    })
  })

export const layerMemory: Layer.Layer<ConfigStore> = Layer.effect(ConfigStore, makeMemory())

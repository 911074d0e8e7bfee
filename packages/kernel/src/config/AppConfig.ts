import { Context, Effect, Either, Layer, type Stream, SubscriptionRef } from "effect"
import { ModelRegistry } from "../models/ModelRegistry.js"
import type { StorageError } from "../storage/StorageError.js"
import { ConfigValidationError } from "./ConfigErrors.js"
import { type AppConfigDocument, redactedSecret } from "./ConfigModel.js"
import * as ConfigSignals from "./ConfigSignals.js"
import * as ConfigStore from "./ConfigStore.js"
import { isJsonObject, type JsonObject, mergePatch, setKey } from "./MergePatch.js"
import * as StoredConfig from "./StoredConfig.js"

/**
 * The application config (SPEC "Config"): defaults deep-merged with what the owner stored.
 * Other services read `get` when they need a value, or follow `changes` to reconcile live.
 * `models.operator.provider` is checked against the `ModelRegistry` in use.
 *
 * @example
 * const config = yield* AppConfig
 * yield* config.patch({ timezone: "Europe/Berlin", mcpServers: { old: null } })
 */
export class AppConfig extends Context.Tag("@aide/kernel/AppConfig")<
  AppConfig,
  {
    /** The resolved, valid document (secrets included: redact before showing it). */
    readonly get: Effect.Effect<AppConfigDocument>
    /**
     * Merges `body` into the stored document (JSON Merge Patch: `null` deletes a key, which
     * brings its default back), validates the result as a whole, stores it and publishes it.
     * A header value equal to `redactedSecret` keeps the stored one. Invalid: nothing changes.
     */
    readonly patch: (body: unknown) => Effect.Effect<AppConfigDocument, ConfigValidationError | StorageError>
    /**
     * `patch` with a body computed by `f` from the current document, inside the write lock (and
     * the store's row lock): read-modify-write of one part, e.g. the scheduler's task list,
     * without losing a concurrent change.
     */
    readonly modify: <E>(
      f: (current: AppConfigDocument) => Effect.Effect<JsonObject, E>,
    ) => Effect.Effect<AppConfigDocument, E | ConfigValidationError | StorageError>
    /** The current document, then every document a patch produces. */
    readonly changes: Stream.Stream<AppConfigDocument>
  }
>() {}

/**
 * The stored document resolved against the defaults, or every problem with it; a provider it
 * names must be one of `providerIds` (a registry's `providerIds`).
 */
export const resolve = StoredConfig.resolve

const objectAt = (value: unknown, ...path: ReadonlyArray<string>): JsonObject | undefined => {
  let current = value
  for (const key of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return isJsonObject(current) ? current : undefined
}

/**
 * `body` with each redacted header value (what GET shows) replaced by the stored secret, so a
 * client can send back what it read. A placeholder with nothing behind it is a problem.
 */
const restoreSecrets = (body: JsonObject, stored: JsonObject) => {
  const problems: Array<string> = []
  const servers = objectAt(body, "mcpServers")
  if (servers === undefined) return { body, problems }
  const restoredServers: Record<string, unknown> = { ...servers }
  for (const [id, server] of Object.entries(servers)) {
    const headers = objectAt(server, "headers")
    if (headers === undefined || !Object.values(headers).includes(redactedSecret)) continue
    const storedHeaders = objectAt(stored, "mcpServers", id, "headers")
    const restored: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(headers)) {
      if (value !== redactedSecret) {
        setKey(restored, name, value)
      } else if (storedHeaders !== undefined && Object.hasOwn(storedHeaders, name)) {
        setKey(restored, name, storedHeaders[name])
      } else {
        problems.push(`mcpServers.${id}.headers.${name}: is the redacted placeholder, but no value is stored`)
      }
    }
    setKey(restoredServers, id, { ...(server as JsonObject), headers: restored })
  }
  return { body: { ...body, mcpServers: restoredServers }, problems }
}

/**
 * `body` merged into the stored document, validated and serialized. A stored text that cannot
 * be used as it is (see `StoredConfig.inspect`) is set aside, then replaced by what was in use
 * plus the patch: one bad row must not refuse every later patch.
 */
const merged = (
  store: ConfigStore.ConfigStore["Type"],
  providerIds: ReadonlyArray<string>,
  text: string,
  body: unknown,
) =>
  Effect.gen(function* () {
    if (!isJsonObject(body)) {
      return yield* new ConfigValidationError({ problems: ["config: must be a JSON object"] })
    }
    const attempt = (base: JsonObject) => {
      const restored = restoreSecrets(body, base)
      const next = mergePatch(base, restored.body) as JsonObject
      const result = resolve(next, providerIds)
      const problems = [...restored.problems, ...(Either.isLeft(result) ? result.left : [])]
      return Either.isRight(result) && problems.length === 0
        ? Either.right({ next, resolved: result.right })
        : Either.left(problems)
    }
    const parsed = StoredConfig.parse(text)
    // The common case costs one validation: the stored document as it is, plus the patch.
    const direct = Either.isRight(parsed) ? attempt(parsed.right) : undefined
    if (direct !== undefined && Either.isRight(direct)) return direct.right
    const stored = StoredConfig.inspect(text, providerIds)
    if (stored.problems.length === 0) return yield* new ConfigValidationError({ problems: direct!.left })
    const salvaged = attempt(stored.document)
    if (Either.isLeft(salvaged)) return yield* new ConfigValidationError({ problems: salvaged.left })
    yield* store.setAside(text, stored.problems.join("; "))
    return salvaged.right
  })

/**
 * At start, any stored text resolves (`StoredConfig.inspect`): what fails uses its defaults, with
 * an error logged and the text set aside in `config_rejected`. The row itself is left as it is
 * until the next write (a replica of an older release must not erase what a newer one stored).
 */
const load = Effect.fn("AppConfig.load")(function* (
  store: ConfigStore.ConfigStore["Type"],
  providerIds: ReadonlyArray<string>,
) {
  const text = yield* store.load
  const stored = StoredConfig.inspect(text, providerIds)
  if (stored.problems.length > 0) {
    yield* Effect.logError(
      "stored config rejected: what failed uses its defaults until the next config change replaces it; the stored text is kept in table config_rejected",
    ).pipe(Effect.annotateLogs({ problems: stored.problems }))
    yield* store
      .setAside(text, stored.problems.join("; "))
      .pipe(Effect.catchAll((error) => Effect.logError("setting the rejected config aside failed", error)))
  }
  return { text, resolved: stored.resolved }
})

/** Whether the owner chose the operator model (the stored document names its provider or model). */
const choseOperator = (stored: unknown) => {
  const operator = objectAt(stored, "models", "operator")
  return operator !== undefined && (Object.hasOwn(operator, "provider") || Object.hasOwn(operator, "model"))
}

/** The service, and what the other replicas' signals need of it (see `layer`). */
const build = Effect.gen(function* () {
  const store = yield* ConfigStore.ConfigStore
  const registry = yield* ModelRegistry
  const { providerIds } = registry
  /**
   * A document whose owner chose no operator model gets the registry's default for it: the
   * catalogue's when its provider is configured, else a configured provider's (never one that
   * cannot answer while another can). Resolved when the document is, never stored.
   */
  const withDefaultOperator = (stored: unknown, resolved: AppConfigDocument): Effect.Effect<AppConfigDocument> =>
    registry.defaultOperator === undefined || choseOperator(stored)
      ? Effect.succeed(resolved)
      : Effect.map(registry.defaultOperator(resolved.models.operator), ({ provider, model }) =>
          provider === resolved.models.operator.provider && model === resolved.models.operator.model
            ? resolved
            : {
                ...resolved,
                models: { ...resolved.models, operator: { ...resolved.models.operator, provider, model } },
              },
        )
  const storedJson = (text: string) => Either.getOrUndefined(StoredConfig.parse(text))
  const loaded = yield* load(store, providerIds)
  const initial = yield* withDefaultOperator(storedJson(loaded.text), loaded.resolved)
  const current = yield* SubscriptionRef.make(initial)
  // Store and publish in the same order, so `changes` ends on what the database holds.
  const writer = yield* Effect.makeSemaphore(1)
  // The text `current` was resolved from: a re-read that finds the same text changes nothing.
  let storedText = loaded.text

  // Another replica wrote the document: resolve what the store holds now and publish it here.
  const reread = writer
    .withPermits(1)(
      Effect.gen(function* () {
        const text = yield* store.load
        if (text === storedText) return
        storedText = text
        const resolved = StoredConfig.inspect(text, providerIds).resolved
        yield* SubscriptionRef.set(current, yield* withDefaultOperator(storedJson(text), resolved))
      }),
    )
    .pipe(Effect.catchAll((error) => Effect.logWarning("re-reading the config failed", error)))
  // Set by `layer` once it follows the other replicas; nothing to tell by default.
  let announce: Effect.Effect<void> = Effect.void

  const apply = <E>(bodyOf: (stored: string) => Effect.Effect<unknown, E>) =>
    Effect.gen(function* () {
      let written: { readonly next: JsonObject; readonly resolved: AppConfigDocument } | undefined
      const text = yield* store.update((text) =>
        bodyOf(text).pipe(
          Effect.flatMap((body) => merged(store, providerIds, text, body)),
          Effect.map((result) => {
            written = result
            return JSON.stringify(result.next)
          }),
        ),
      )
      // After the write (a model list may be asked for): never inside the store's transaction.
      const resolved = yield* withDefaultOperator(written!.next, written!.resolved)
      yield* SubscriptionRef.set(current, resolved)
      storedText = text
      yield* announce
      return resolved
    })

  const modify = <E>(f: (current: AppConfigDocument) => Effect.Effect<JsonObject, E>) =>
    writer
      // What is in use, even when the stored text went bad behind our back.
      .withPermits(1)(Effect.uninterruptible(apply((text) => f(StoredConfig.inspect(text, providerIds).resolved))))
      .pipe(Effect.withSpan("AppConfig.modify"))

  const patch = Effect.fn("AppConfig.patch")(
    (body: unknown) => apply(() => Effect.succeed(body)),
    // Uninterruptible once it holds the lock: a client hanging up must not leave a committed
    // patch unpublished.
    (effect) => writer.withPermits(1)(Effect.uninterruptible(effect)),
  )

  const service = AppConfig.of({ get: SubscriptionRef.get(current), patch, modify, changes: current.changes })
  const announceWith = (effect: Effect.Effect<void>) => {
    announce = effect
  }
  return { service, reread, announceWith }
})

export const make = Effect.map(build, ({ service }) => service)

/** `AppConfig` over a `ConfigStore`, checking providers against the `ModelRegistry`; loads the stored document when built. */
export const layer: Layer.Layer<AppConfig, StorageError, ConfigStore.ConfigStore | ModelRegistry> = Layer.scoped(
  AppConfig,
  // With `ReplicaSignals` (several replicas), changes made elsewhere are re-read (ConfigSignals).
  Effect.gen(function* () {
    const built = yield* build
    built.announceWith(yield* ConfigSignals.follow(built.reread))
    return built.service
  }),
)

/** `AppConfig` kept in memory only: for tests and embedders without storage. */
export const layerMemory: Layer.Layer<AppConfig, never, ModelRegistry> = Layer.orDie(
  layer.pipe(Layer.provide(ConfigStore.layerMemory)),
)

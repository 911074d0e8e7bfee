import { Context, Effect, Either, Layer, ParseResult, Schema, type Stream, SubscriptionRef } from "effect"
import type { StorageError } from "../storage/StorageError.js"
import { ConfigValidationError } from "./ConfigErrors.js"
import { AppConfigDocument, defaults, redactedSecret } from "./ConfigModel.js"
import * as ConfigStore from "./ConfigStore.js"
import { isJsonObject, type JsonObject, mergePatch, setKey } from "./MergePatch.js"

/**
 * The application config (SPEC "Config"): defaults deep-merged with what the owner stored.
 * Other services read `get` when they need a value, or follow `changes` to reconcile live.
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

const decode = Schema.decodeUnknownEither(AppConfigDocument, { errors: "all", onExcessProperty: "error" })

const describeIssue = (issue: ParseResult.ArrayFormatterIssue) => {
  const path = issue.path.length === 0 ? "config" : issue.path.map(String).join(".")
  const message = issue.message.startsWith("is unexpected")
    ? `unknown key (${issue.message.replace(/^is unexpected, expected: /, "expected one of ")})`
    : issue.message === "is missing"
      ? "is required"
      : issue.message
  return `${path}: ${message}`
}

/** The stored document resolved against the defaults, or every problem with it. */
export const resolve = (stored: JsonObject): Either.Either<AppConfigDocument, ReadonlyArray<string>> =>
  Either.mapLeft(decode(mergePatch(defaults, stored)), (error) =>
    ParseResult.ArrayFormatter.formatErrorSync(error).map(describeIssue),
  )

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
 * At start, a stored document that no longer validates (a section the schema since tightened,
 * a hand-edited row) must not keep the server down: each invalid top-level section falls back
 * to its default, with a warning. The row is left as it is; the next PATCH names the problems.
 */
const resolveAtStart = Effect.fn("AppConfig.resolveAtStart")(function* (stored: JsonObject) {
  const resolved = resolve(stored)
  if (Either.isRight(resolved)) return resolved.right
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(stored)) {
    const candidate = { ...kept }
    setKey(candidate, key, value)
    if (Either.isRight(resolve(candidate))) setKey(kept, key, value)
  }
  yield* Effect.logWarning("stored config is invalid: those sections use their defaults").pipe(
    Effect.annotateLogs({ problems: resolved.left }),
  )
  return yield* Either.match(resolve(kept), {
    onLeft: (problems) => Effect.dieMessage(`default config is invalid: ${problems.join("; ")}`),
    onRight: Effect.succeed,
  })
})

export const make = Effect.gen(function* () {
  const store = yield* ConfigStore.ConfigStore
  const current = yield* SubscriptionRef.make(yield* resolveAtStart(yield* store.load))
  // Store and publish in the same order, so `changes` ends on what the database holds.
  const writer = yield* Effect.makeSemaphore(1)

  const apply = <E>(bodyOf: (stored: JsonObject) => Effect.Effect<unknown, E>) =>
    Effect.gen(function* () {
      let resolved: AppConfigDocument | undefined
      yield* store.update((stored) =>
        Effect.flatMap(bodyOf(stored), (body) => {
          if (!isJsonObject(body)) {
            return Effect.fail(new ConfigValidationError({ problems: ["config: must be a JSON object"] }))
          }
          const restored = restoreSecrets(body, stored)
          const next = mergePatch(stored, restored.body) as JsonObject
          const result = resolve(next)
          const problems = [...restored.problems, ...(Either.isLeft(result) ? result.left : [])]
          if (problems.length > 0 || Either.isLeft(result)) return Effect.fail(new ConfigValidationError({ problems }))
          resolved = result.right
          return Effect.succeed(next)
        }),
      )
      yield* SubscriptionRef.set(current, resolved!)
      return resolved!
    })

  const modify = <E>(f: (current: AppConfigDocument) => Effect.Effect<JsonObject, E>) =>
    writer
      .withPermits(1)(
        Effect.uninterruptible(
          apply((stored) =>
            Either.match(resolve(stored), {
              // The stored document went bad behind our back: start from what is in use.
              onLeft: () => Effect.flatMap(SubscriptionRef.get(current), f),
              onRight: f,
            }),
          ),
        ),
      )
      .pipe(Effect.withSpan("AppConfig.modify"))

  const patch = Effect.fn("AppConfig.patch")(
    (body: unknown) => apply(() => Effect.succeed(body)),
    // Uninterruptible once it holds the lock: a client hanging up must not leave a committed
    // patch unpublished.
    (effect) => writer.withPermits(1)(Effect.uninterruptible(effect)),
  )

  return AppConfig.of({ get: SubscriptionRef.get(current), patch, modify, changes: current.changes })
})

/** `AppConfig` over a `ConfigStore`; loads the stored document when built. */
export const layer: Layer.Layer<AppConfig, StorageError, ConfigStore.ConfigStore> = Layer.effect(AppConfig, make)

/** `AppConfig` kept in memory only: for tests and embedders without storage. */
export const layerMemory: Layer.Layer<AppConfig> = Layer.orDie(layer.pipe(Layer.provide(ConfigStore.layerMemory)))

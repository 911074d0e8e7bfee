import { ModelRegistry, ProviderConnections } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Duration, Effect, Either } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict, NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** How long a connection test may take in all (the model list itself gives up after a few seconds). */
const testTimeout = Duration.seconds(10)

const wire = (summary: ProviderConnections.ConnectionSummary) => ({
  ...summary,
  updatedAt: summary.updatedAt.toISOString(),
})

export const layer = HttpApiBuilder.group(AideApi, "models", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* ModelRegistry.ModelRegistry
    const connections = yield* ProviderConnections.ProviderConnections
    const badRequest = (error: { readonly message: string }) => Effect.fail(new BadRequest({ error: error.message }))

    const test = (provider: string) =>
      Effect.gen(function* () {
        const providers = yield* registry.providers
        const suggestions = providers.find((entry) => entry.id === provider)?.models ?? []
        const listModels = registry.listModels
        if (listModels === undefined) return { ok: true, models: suggestions, listed: false }
        const listed = yield* listModels(provider).pipe(
          Effect.map((result) => result ?? Either.right(suggestions)),
          Effect.catchTag("ModelNotConfigured", (error) => Effect.succeed(Either.left(error.message))),
          Effect.timeoutTo({
            duration: testTimeout,
            onSuccess: (result) => result,
            onTimeout: () => Either.left(`no answer within ${Duration.format(testTimeout)}`),
          }),
        )
        return Either.match(listed, {
          onLeft: (error) => ({ ok: false, models: [], listed: true, error }),
          onRight: (models) => ({ ok: true, models: [...models], listed: models !== suggestions }),
        })
      })

    return handlers
      .handle("list", () => Effect.map(registry.providers, (providers) => ({ providers })))
      .handle("connections", () =>
        connections.list.pipe(
          Effect.map((list) => ({
            connections: list.map(wire),
            environment: registry.providerIds.filter((id) => registry.connectable?.(id)?.setByEnvironment === true),
          })),
          dieOnStorageError,
        ),
      )
      .handle("connect", ({ path, payload }) =>
        connections.set(path.provider, payload.values).pipe(
          Effect.map(wire),
          Effect.catchTags({
            InvalidConnection: badRequest,
            ConnectionSetByEnvironment: (error) => Effect.fail(new Conflict({ error: error.message })),
          }),
          dieOnStorageError,
        ),
      )
      .handle("disconnect", ({ path }) =>
        connections.remove(path.provider).pipe(
          Effect.catchTag("InvalidConnection", badRequest),
          Effect.flatMap((removed) =>
            removed
              ? Effect.succeed({ success: true as const })
              : Effect.fail(new NotFound({ error: `provider ${path.provider} has no connection` })),
          ),
          dieOnStorageError,
        ),
      )
      .handle("testConnection", ({ path }) => test(path.provider).pipe(Effect.catchTag("UnknownProvider", badRequest)))
  }),
)

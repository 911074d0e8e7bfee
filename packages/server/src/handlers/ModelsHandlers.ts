import { ModelRegistry } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"

export const layer = HttpApiBuilder.group(AideApi, "models", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* ModelRegistry.ModelRegistry
    return handlers.handle("list", () => Effect.map(registry.providers, (providers) => ({ providers })))
  }),
)

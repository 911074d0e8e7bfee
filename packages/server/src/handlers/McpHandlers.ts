import { McpRegistry } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"

export const layer = HttpApiBuilder.group(AideApi, "mcp", (handlers) =>
  Effect.gen(function* () {
    const registry = yield* McpRegistry.McpRegistry
    return handlers.handle("list", () => Effect.map(registry.list, (servers) => ({ servers })))
  }),
)

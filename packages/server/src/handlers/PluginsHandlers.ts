import { PluginLoader } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"

export const layer = HttpApiBuilder.group(AideApi, "plugins", (handlers) =>
  Effect.gen(function* () {
    const loader = yield* PluginLoader.PluginLoader
    return handlers.handle("list", () => Effect.map(loader.list, (plugins) => ({ plugins })))
  }),
)

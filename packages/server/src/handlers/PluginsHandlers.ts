import { PluginCatalog } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"

export const layer = HttpApiBuilder.group(AideApi, "plugins", (handlers) =>
  Effect.gen(function* () {
    const catalog = yield* PluginCatalog.PluginCatalog
    return handlers.handle("list", () => Effect.map(catalog.list, (plugins) => ({ plugins })))
  }),
)

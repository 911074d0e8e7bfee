import { PluginView } from "@aide/kernel/internal"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Security.js"

export const PluginList = Schema.Struct({ plugins: Schema.Array(PluginView.PluginView) }).annotations({
  identifier: "PluginList",
})

/** SPEC "Plugins and models": the plugins found, with their config, environment and problems. */
export class PluginsApi extends HttpApiGroup.make("plugins")
  .add(
    HttpApiEndpoint.get("list", "/api/plugins")
      .addSuccess(PluginList)
      .annotate(OpenApi.Summary, "List plugins, their settings and their problems"),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Plugins (Bearer token)") {}

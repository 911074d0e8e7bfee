import { Providers } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Security.js"

export const ProviderList = Schema.Struct({ providers: Schema.Array(Providers.Provider) }).annotations({
  identifier: "ProviderList",
})

/** SPEC "Plugins and models": the AI providers and whether their API keys are set on the host. */
export class ModelsApi extends HttpApiGroup.make("models")
  .add(
    HttpApiEndpoint.get("list", "/api/models")
      .addSuccess(ProviderList)
      .annotate(OpenApi.Summary, "List AI providers and whether their keys are set"),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "AI model providers (Bearer token)") {}

import { ConfigModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { BadRequest } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/** SPEC "Configuration": the application config, defaults merged with stored values. */
export class ConfigApi extends HttpApiGroup.make("config")
  .add(
    HttpApiEndpoint.get("get", "/api/config")
      .addSuccess(ConfigModel.AppConfigDocument)
      .annotate(OpenApi.Summary, "Read the config, defaults included"),
  )
  .add(
    HttpApiEndpoint.patch("patch", "/api/config")
      .annotate(OpenApi.Summary, "Change the config by JSON merge patch")
      .setPayload(ConfigModel.ConfigPatch)
      .addSuccess(ConfigModel.AppConfigDocument)
      .addError(BadRequest.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Application config (Bearer token); MCP header values are shown redacted") {}

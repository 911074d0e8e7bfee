import { ConfigModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/**
 * A partial config: decoded loosely here so that the kernel validates the merged document as
 * a whole and reports every problem, not just the first.
 */
export const ConfigPatch = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "ConfigPatch",
  description:
    "Partial AppConfig, deep-merged into the stored one; null deletes a key (its default comes back). " +
    "A header value sent back as the redacted placeholder keeps the stored secret.",
  message: () => "request body must be a JSON object",
})

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
      .setPayload(ConfigPatch)
      .addSuccess(ConfigModel.AppConfigDocument)
      .addError(BadRequest.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Application config (Bearer token); MCP header values are shown redacted") {}

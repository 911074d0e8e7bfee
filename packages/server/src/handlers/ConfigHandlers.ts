import { AppConfig, ConfigErrors, ConfigModel, PluginCatalog } from "@aide/kernel"
import { type MergePatch } from "@aide/kernel/internal"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/**
 * Secrets (MCP header values, plugin password fields) never leave the server: both answers are
 * redacted. Plugin fields are checked against their manifests (a wrong type is a 400), inside
 * the config's write lock.
 */
export const layer = HttpApiBuilder.group(AideApi, "config", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig.AppConfig
    const plugins = yield* PluginCatalog.PluginCatalog
    const shown = (document: ConfigModel.AppConfigDocument) => plugins.redact(ConfigModel.redactSecrets(document))
    return handlers
      .handle("get", () => Effect.flatMap(config.get, shown))
      .handle("patch", ({ payload }) =>
        config
          .modify((current) =>
            Effect.flatMap(plugins.checkPatch(current, payload as MergePatch.JsonObject), ({ body, problems }) =>
              problems.length === 0
                ? Effect.succeed(body)
                : Effect.fail(new ConfigErrors.ConfigValidationError({ problems })),
            ),
          )
          .pipe(
            Effect.flatMap(shown),
            Effect.catchTag("ConfigValidationError", (error) => new BadRequest({ error: error.problems.join("; ") })),
            dieOnStorageError,
          ),
      )
  }),
)

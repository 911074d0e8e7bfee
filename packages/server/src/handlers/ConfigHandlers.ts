import { AppConfig, ConfigModel } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** Secrets (MCP header values) never leave the server: both answers are redacted. */
export const layer = HttpApiBuilder.group(AideApi, "config", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig.AppConfig
    return handlers
      .handle("get", () => Effect.map(config.get, ConfigModel.redactSecrets))
      .handle("patch", ({ payload }) =>
        config.patch(payload).pipe(
          Effect.map(ConfigModel.redactSecrets),
          Effect.catchTag("ConfigValidationError", (error) => new BadRequest({ error: error.problems.join("; ") })),
          dieOnStorageError,
        ),
      )
  }),
)

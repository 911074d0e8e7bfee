import { McpOAuth, McpRegistry } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest } from "../api/ApiErrors.js"

const completePage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Aide</title></head>
<body><p>Authorization complete, you can close this window.</p></body>
</html>
`

export const layer = HttpApiBuilder.group(AideApi, "mcpOAuth", (handlers) =>
  Effect.gen(function* () {
    const oauth = yield* McpOAuth.McpOAuth
    const registry = yield* McpRegistry.McpRegistry
    // A used-up state leaves its server without a live authorization URL: connecting again
    // gives it a fresh one (or, after success, the tools).
    const refused = (error: McpOAuth.McpOAuthError) =>
      Effect.zipRight(
        error.serverId === undefined ? Effect.void : registry.reconnect(error.serverId),
        Effect.fail(new BadRequest({ error: error.message })),
      )

    return handlers.handle("callback", ({ urlParams }) =>
      Effect.gen(function* () {
        const { state, code, error } = urlParams
        if (state === undefined || state === "") return yield* new BadRequest({ error: "state is required" })
        if (error !== undefined) {
          const serverId = yield* oauth.cancel(state).pipe(Effect.catchAll(refused))
          yield* registry.reconnect(serverId)
          const detail = urlParams.error_description === undefined ? "" : ` (${urlParams.error_description})`
          return yield* new BadRequest({ error: `Authorization denied: ${error}${detail}` })
        }
        if (code === undefined || code === "") return yield* new BadRequest({ error: "code is required" })
        const serverId = yield* oauth.complete(state, code).pipe(Effect.catchAll(refused))
        yield* registry.reconnect(serverId)
        return completePage
      }),
    )
  }),
)

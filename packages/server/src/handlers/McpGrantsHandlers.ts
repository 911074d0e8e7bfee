import { McpGrants, type McpOAuthRequests } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"
import { singleParams } from "../mcp/OAuthParams.js"

const paramsOf = (request: string) => {
  const params = singleParams(new URLSearchParams(request))
  return typeof params === "string" ? Effect.fail(new BadRequest({ error: params })) : Effect.succeed(params)
}

/** Authorization requests the consent screen cannot go on with: said in the client's error words. */
const refused = (error: McpOAuthRequests.AuthorizeNotRedirectable | McpOAuthRequests.AuthorizeRedirect) =>
  new BadRequest({ error: `${error.error}: ${error.description}` })

export const layer = HttpApiBuilder.group(AideApi, "mcpGrants", (handlers) =>
  Effect.gen(function* () {
    const grants = yield* McpGrants.McpGrants
    return handlers
      .handle("inspectConsent", ({ payload }) =>
        Effect.flatMap(paramsOf(payload.request), grants.check).pipe(
          Effect.map((request) => ({
            clientId: request.client.id,
            clientName: request.client.name,
            redirectUri: request.redirectUri,
            tools: request.tools.map((name) => ({ name, writes: McpGrants.toolKind(name) !== "reads" })),
          })),
          Effect.catchTags({ AuthorizeNotRedirectable: refused, AuthorizeRedirect: refused }),
          dieOnStorageError,
        ),
      )
      .handle("decideConsent", ({ payload }) =>
        Effect.flatMap(paramsOf(payload.request), (params) =>
          payload.approve ? grants.approve(params, payload.tools) : grants.deny(params),
        ).pipe(
          Effect.map((redirectTo) => ({ redirectTo })),
          // A request refused after its redirect URI checked out goes back to the client, as OAuth says.
          Effect.catchTag("AuthorizeRedirect", (error) => {
            const url = new URL(error.redirectUri)
            url.searchParams.set("error", error.error)
            url.searchParams.set("error_description", error.description)
            if (error.state !== undefined) url.searchParams.set("state", error.state)
            return Effect.succeed({ redirectTo: url.href })
          }),
          Effect.catchTag("AuthorizeNotRedirectable", refused),
          dieOnStorageError,
        ),
      )
      .handle("listClients", () =>
        grants.list.pipe(
          Effect.map((list) => ({
            clients: list.map((grant) => ({
              id: grant.id,
              clientId: grant.clientId,
              clientName: grant.clientName,
              redirectUris: grant.redirectUris,
              tools: grant.tools,
              createdAt: grant.createdAt,
              expiresAt: grant.expiresAt,
            })),
          })),
          dieOnStorageError,
        ),
      )
      .handle("revokeClient", ({ path }) =>
        grants.revokeGrant(path.id).pipe(
          Effect.flatMap((revoked) =>
            revoked
              ? Effect.succeed({ success: true as const })
              : Effect.fail(new NotFound({ error: "mcp_client_not_found" })),
          ),
          dieOnStorageError,
        ),
      )
  }),
)

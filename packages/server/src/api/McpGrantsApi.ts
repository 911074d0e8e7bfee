import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/** The query of `/oauth/authorize`, as the consent screen got it (bounded: 8 KiB). */
const AuthorizationRequest = Schema.String.pipe(Schema.maxLength(8192))

export const ConsentRequest = Schema.Struct({ request: AuthorizationRequest }).annotations({
  identifier: "ConsentRequest",
})

/** What the owner is asked to consent to. */
export const ConsentDetails = Schema.Struct({
  clientId: Schema.String,
  /** The name the client registered itself with: its own claim, unverified. */
  clientName: Schema.String,
  redirectUri: Schema.String,
  /** The tools the client asks for, each with whether it only reads. */
  tools: Schema.Array(Schema.Struct({ name: Schema.String, writes: Schema.Boolean })),
}).annotations({ identifier: "ConsentDetails" })

export const ConsentDecision = Schema.Struct({
  request: AuthorizationRequest,
  approve: Schema.Boolean,
  /** The tools approved: a subset of those asked for (others are ignored). */
  tools: Schema.Array(Schema.String.pipe(Schema.maxLength(64))).pipe(Schema.maxItems(32)),
}).annotations({ identifier: "ConsentDecision" })

export const ConsentRedirect = Schema.Struct({
  /** Where the browser goes next: the client's redirect URI with the code (or `access_denied`). */
  redirectTo: Schema.String,
}).annotations({ identifier: "ConsentRedirect" })

/** A client the owner consented to: one grant (docs/api-decisions.md "MCP clients"). */
export const McpClientGrant = Schema.Struct({
  id: Schema.String,
  clientId: Schema.String,
  clientName: Schema.String,
  redirectUris: Schema.Array(Schema.String),
  tools: Schema.Array(Schema.String),
  createdAt: Schema.String,
  expiresAt: Schema.String,
}).annotations({ identifier: "McpClientGrant" })

export const McpClientList = Schema.Struct({ clients: Schema.Array(McpClientGrant) }).annotations({
  identifier: "McpClientList",
})

/**
 * Not in SPEC: the owner's side of `/mcp`'s OAuth (docs/mcp-server.md "OAuth"): the console's
 * consent screen, and the clients holding a grant, listed and revoked apart from the sessions
 * (SPEC fixes `GET /api/auth/sessions`' shape).
 */
export class McpGrantsApi extends HttpApiGroup.make("mcpGrants")
  .add(
    HttpApiEndpoint.post("inspectConsent", "/api/mcp/consent/inspect")
      .setPayload(ConsentRequest)
      .addSuccess(ConsentDetails)
      .addError(BadRequest.Wire)
      .annotate(OpenApi.Summary, "Check an MCP client's authorization request and show what it asks for"),
  )
  .add(
    HttpApiEndpoint.post("decideConsent", "/api/mcp/consent")
      .setPayload(ConsentDecision)
      .addSuccess(ConsentRedirect)
      .addError(BadRequest.Wire)
      .annotate(OpenApi.Summary, "Approve (with the tools ticked) or deny an MCP client's authorization request"),
  )
  .add(
    HttpApiEndpoint.get("listClients", "/api/mcp/clients")
      .addSuccess(McpClientList)
      .annotate(OpenApi.Summary, "List the MCP clients holding a grant"),
  )
  .add(
    HttpApiEndpoint.del("revokeClient", "/api/mcp/clients/:id")
      .setPath(Schema.Struct({ id: Schema.String.pipe(Schema.maxLength(64)) }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "Revoke an MCP client's grant: its tokens fail on their next call"),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "MCP clients authorized through OAuth: consent, list, revoke (Bearer token)") {}

import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest } from "./ApiErrors.js"

/** What an authorization server appends to our redirect URI (RFC 6749 §4.1.2); other parameters are ignored. */
export const CallbackParams = Schema.Struct({
  code: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  error_description: Schema.optional(Schema.String),
}).annotations({ identifier: "McpOAuthCallbackParams" })

export const CallbackPage = HttpApiSchema.Text({ contentType: "text/html" }).annotations({
  description: "A short page telling the owner that authorization is complete",
})

/** Where authorization servers send the owner's browser back (the kernel gets the full URL). */
export const callbackPath = "/api/mcp-servers/oauth/callback"

/** `https://aide.example.com` → `https://aide.example.com/api/mcp-servers/oauth/callback` */
export const callbackUrl = (publicUrl: string) => `${publicUrl.replace(/\/+$/, "")}${callbackPath}`

/**
 * The OAuth redirect URI of MCP servers. Public: the owner's browser arrives here from the
 * authorization server without our bearer token; the single-use `state` is the credential.
 */
export class McpOAuthApi extends HttpApiGroup.make("mcpOAuth")
  .add(
    HttpApiEndpoint.get("callback", callbackPath)
      .annotate(OpenApi.Summary, "OAuth redirect URI of remote MCP servers (browser only)")
      .setUrlParams(CallbackParams)
      .addSuccess(CallbackPage)
      .addError(BadRequest.Wire),
  )
  .annotate(OpenApi.Description, "OAuth callback of remote MCP servers (public, reached by the owner's browser)") {}

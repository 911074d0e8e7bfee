import { HttpServerResponse } from "@effect/platform"

/**
 * Where `/mcp`'s protected-resource metadata lives (RFC 9728 §3.1: the well-known prefix before
 * the resource's path), under the server's public origin.
 */
export const resourceMetadataUrl = (publicUrl: string) =>
  `${new URL(publicUrl).origin}/.well-known/oauth-protected-resource/mcp`

/** The `WWW-Authenticate` of `/mcp`'s 401: tells an MCP client where to start OAuth (RFC 9728 §5.1). */
export const challenge = (publicUrl: string) => `Bearer resource_metadata="${resourceMetadataUrl(publicUrl)}"`

/** `/mcp`'s 401: the API's body, plus the challenge MCP clients follow. */
export const unauthorized = (publicUrl: string) =>
  HttpServerResponse.unsafeJson(
    { error: "unauthorized" },
    { status: 401, headers: { "www-authenticate": challenge(publicUrl), "cache-control": "no-store" } },
  )

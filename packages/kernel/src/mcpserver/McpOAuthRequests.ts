import { Data } from "effect"
import { type McpToolName, mcpToolNames, readOnlyMcpTools } from "../config/McpEndpointConfig.js"

/**
 * The OAuth requests `/mcp`'s authorization server takes, checked: dynamic client registration
 * (RFC 7591) and the authorization request (RFC 6749 §4.1.1, PKCE RFC 7636, RFC 8707 resource).
 * Every field is bounded; anything else fails with the error the RFCs name.
 */

/** An OAuth error answered as `{ error, error_description }` (or on the redirect, when it may go there). */
export class OAuthError extends Data.TaggedError("OAuthError")<{
  readonly error: string
  readonly description: string
  readonly status: number
}> {}

/**
 * An authorization request the server must not redirect for (unknown client, redirect URI not
 * registered): the browser is shown the error instead (RFC 6749 §4.1.2.1).
 */
export class AuthorizeNotRedirectable extends Data.TaggedError("AuthorizeNotRedirectable")<{
  readonly error: string
  readonly description: string
}> {}

/** An authorization request refused where the client learns it: on its redirect URI. */
export class AuthorizeRedirect extends Data.TaggedError("AuthorizeRedirect")<{
  readonly redirectUri: string
  readonly error: string
  readonly description: string
  readonly state: string | undefined
}> {}

export const limits = {
  maxRedirectUris: 5,
  maxUriLength: 2000,
  maxClientName: 100,
  maxState: 1024,
  maxParam: 4096,
} as const

/** Control characters (C0 and DEL): a client name shown to the owner is one plain line. */
const hasControlCharacters = (text: string) =>
  [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)

const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"])

/** https, or http on a loopback host (RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2). */
export const redirectUriProblem = (value: unknown): string | undefined => {
  if (typeof value !== "string" || value.length === 0) return "a redirect URI must be a non-empty string"
  if (value.length > limits.maxUriLength) return `a redirect URI must be at most ${limits.maxUriLength} characters`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return "a redirect URI must be an absolute URL"
  }
  if (url.hash !== "" || value.includes("#")) return "a redirect URI must not have a fragment"
  if (url.username !== "" || url.password !== "") return "a redirect URI must not carry credentials"
  if (url.protocol === "https:") return undefined
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname)) return undefined
  return "a redirect URI must be https, or http on a loopback address (127.0.0.1, [::1], localhost)"
}

export interface ClientMetadata {
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
}

const fail = (error: string, description: string, status = 400) => new OAuthError({ error, description, status })

/** RFC 7591 §2 metadata of a public client, bounded; fields Aide does not use are ignored. */
export const clientMetadata = (body: unknown): ClientMetadata | OAuthError => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return fail("invalid_client_metadata", "the body must be a JSON object")
  }
  const input = body as Record<string, unknown>
  const uris = input.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > limits.maxRedirectUris) {
    return fail("invalid_redirect_uri", `redirect_uris must list 1 to ${limits.maxRedirectUris} URIs`)
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri)
    if (problem !== undefined) return fail("invalid_redirect_uri", problem)
  }
  const method = input.token_endpoint_auth_method
  if (method !== undefined && method !== "none") {
    return fail("invalid_client_metadata", 'token_endpoint_auth_method must be "none": clients are public (PKCE)')
  }
  const grantTypes = input.grant_types
  if (
    grantTypes !== undefined &&
    (!Array.isArray(grantTypes) || grantTypes.some((type) => type !== "authorization_code" && type !== "refresh_token"))
  ) {
    return fail("invalid_client_metadata", "grant_types may only be authorization_code and refresh_token")
  }
  const responseTypes = input.response_types
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== "code"))) {
    return fail("invalid_client_metadata", 'response_types may only be "code"')
  }
  const name = input.client_name
  if (name !== undefined && (typeof name !== "string" || name.length > limits.maxClientName)) {
    return fail("invalid_client_metadata", `client_name must be a string of at most ${limits.maxClientName} characters`)
  }
  if (typeof name === "string" && hasControlCharacters(name)) {
    return fail("invalid_client_metadata", "client_name must not contain control characters")
  }
  const trimmed = typeof name === "string" ? name.trim() : ""
  return { name: trimmed === "" ? "Unnamed client" : trimmed, redirectUris: [...new Set(uris as Array<string>)] }
}

/** A URI as compared for RFC 8707: lowercase scheme and host (URL does that), no trailing slash. */
export const canonicalResource = (value: string): string | undefined => {
  try {
    const url = new URL(value)
    if (url.hash !== "") return undefined
    return url.href.endsWith("/") ? url.href.slice(0, -1) : url.href
  } catch {
    return undefined
  }
}

/** The tools of a `scope` (space-separated tool names); absent: the read-only ones. */
export const scopeTools = (scope: string | undefined): ReadonlyArray<McpToolName> | string => {
  if (scope === undefined || scope.trim() === "") return readOnlyMcpTools
  const names = [...new Set(scope.trim().split(/ +/))]
  const unknown = names.filter((name) => !(mcpToolNames as ReadonlyArray<string>).includes(name))
  if (unknown.length > 0)
    return `unknown scope (tool) ${JSON.stringify(unknown[0])}: known are ${mcpToolNames.join(" ")}`
  return names as ReadonlyArray<McpToolName>
}

/** A PKCE S256 code challenge: base64url of a SHA-256, 43 characters (RFC 7636 §4.2). */
export const codeChallengePattern = /^[A-Za-z0-9_-]{43}$/
/** A PKCE code verifier (RFC 7636 §4.1). */
export const codeVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/

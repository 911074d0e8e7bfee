import { Schema } from "effect"

/** A server could not be reached or started; `message` is what `GET /api/mcp-servers` shows as `error`. */
export class McpConnectError extends Schema.TaggedError<McpConnectError>()("McpConnectError", {
  message: Schema.String,
}) {}

/** An OAuth server answered 401: the owner has to authorize at `authUrl` first. */
export class McpAuthorizationPending extends Schema.TaggedError<McpAuthorizationPending>()("McpAuthorizationPending", {
  authUrl: Schema.String,
}) {}

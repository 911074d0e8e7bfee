import { Context, Effect, Layer, Schema } from "effect"
import * as Auth from "../auth/Auth.js"

/**
 * Who is calling `/mcp`: the owner (an API access token, with the authority of the owner's API)
 * or an OAuth client the owner consented to, limited to the tools of its grant.
 */
export type McpPrincipal =
  | { readonly kind: "owner"; readonly sessionId: string }
  | {
      readonly kind: "client"
      readonly clientId: string
      readonly clientName: string
      /** The tools the owner consented to for this client: `"all"`, or these names only. */
      readonly tools: ReadonlyArray<string> | "all"
      readonly grantId: string
    }

/** No credential, or one `/mcp` does not accept (expired, revoked, for another resource). */
export class McpUnauthorized extends Schema.TaggedError<McpUnauthorized>()("McpUnauthorized", {}) {}

/**
 * Decides who a `/mcp` request's Bearer token belongs to. Contract for an implementation: it
 * gets the token after `Bearer ` (or undefined when there is none), unbounded, bounds its own
 * work, fails with `McpUnauthorized` for anything it does not accept (never a defect for a bad
 * token: a storage failure may be one), checks on every call (a revoked token fails on its very
 * next request: MCP sessions are never authentication), and never logs the token.
 * `layerOwner` accepts the owner's API access tokens only; an OAuth Layer accepts those too,
 * plus tokens issued for the `/mcp` resource.
 */
export class McpAuthorizer extends Context.Tag("@aide/kernel/McpAuthorizer")<
  McpAuthorizer,
  {
    readonly authorize: (bearer: string | undefined) => Effect.Effect<McpPrincipal, McpUnauthorized>
  }
>() {}

const bearerPattern = /^bearer +(\S+) *$/i

/** The token of an `Authorization: Bearer …` header, or undefined for none or another scheme. */
export const bearerToken = (authorization: string | null | undefined): string | undefined =>
  authorization === null || authorization === undefined ? undefined : bearerPattern.exec(authorization)?.[1]

/** The owner's access tokens (`Auth.authenticate`), the same ones `/api` takes. */
export const authorizeOwner = (auth: Auth.Auth["Type"], bearer: string | undefined) =>
  bearer === undefined || bearer === ""
    ? Effect.fail(new McpUnauthorized())
    : auth.authenticate(bearer).pipe(
        Effect.map((principal): McpPrincipal => ({ kind: "owner", sessionId: principal.sessionId })),
        Effect.catchTags({
          Unauthenticated: () => Effect.fail(new McpUnauthorized()),
          // Not the caller's fault: a 500, never a 401 that would send a client to sign in again.
          StorageError: (error) => Effect.die(error),
        }),
      )

/** The default: only the owner's API access tokens open `/mcp`. */
export const layerOwner: Layer.Layer<McpAuthorizer, never, Auth.Auth> = Layer.effect(
  McpAuthorizer,
  Effect.map(Auth.Auth, (auth) => McpAuthorizer.of({ authorize: (bearer) => authorizeOwner(auth, bearer) })),
)

/**
 * The tools a principal may see and call: the owner's choice (`mcpServer.tools`), and for an
 * OAuth client only those of them its grant names too.
 */
export const allowedTools = (principal: McpPrincipal, configured: ReadonlyArray<string>): ReadonlyArray<string> =>
  principal.kind === "owner" || principal.tools === "all"
    ? configured
    : configured.filter((name) => (principal.tools as ReadonlyArray<string>).includes(name))

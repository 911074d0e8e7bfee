import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import * as Auth from "../auth/Auth.js"
import { sha256 } from "../auth/Sessions.js"
import { mcpToolKinds, mcpToolNames } from "../config/McpEndpointConfig.js"
import { Ids } from "../ids/Ids.js"
import type { StorageError } from "../storage/StorageError.js"
import { authorizeOwner, McpAuthorizer, type McpPrincipal, McpUnauthorized } from "./McpAuthorizer.js"
import { type McpClientRow, McpGrantStore, type McpGrantView } from "./McpGrantStore.js"
import * as Tokens from "./McpGrantTokens.js"
import * as Requests from "./McpOAuthRequests.js"

/** What the token endpoint answers. */
export type TokenResponse = Tokens.TokenResponse

/** A checked authorization request: what the consent screen shows and the approval issues a code for. */
export interface AuthorizeRequest {
  readonly client: McpClientRow
  readonly redirectUri: string
  readonly state: string | undefined
  readonly codeChallenge: string
  readonly resource: string
  readonly tools: ReadonlyArray<string>
}

type AuthorizeFailure = Requests.AuthorizeNotRedirectable | Requests.AuthorizeRedirect | StorageError

export interface McpGrantsOptions {
  /** The protected resource, `<public origin>/mcp`: every token is bound to it (RFC 8707). */
  readonly resource: string
  /** The authorization server's issuer, the public origin (RFC 8414, RFC 9207 `iss`). */
  readonly issuer: string
  readonly accessTokenTtl?: Duration.DurationInput
  readonly refreshTokenTtl?: Duration.DurationInput
  readonly codeTtl?: Duration.DurationInput
  /** Registered clients kept at most (registration is open to anyone); default 500. */
  readonly maxClients?: number
}

export const defaults = {
  accessTokenTtl: Duration.minutes(10),
  refreshTokenTtl: Duration.days(30),
  codeTtl: Duration.seconds(60),
  maxClients: 500,
} as const

/**
 * `/mcp`'s OAuth 2.1 authorization server (docs/mcp-server.md "OAuth"): dynamic registration,
 * the authorization request checked before the owner's consent, authorization codes (PKCE
 * S256 only, single use, 60 s), resource-bound opaque tokens with refresh rotation and reuse
 * detection, and the grants the owner lists and revokes. No token it issues is a JWT of the
 * API's: `/api` never accepts one.
 */
export class McpGrants extends Context.Tag("@aide/kernel/McpGrants")<
  McpGrants,
  {
    readonly options: Required<McpGrantsOptions>
    readonly register: (body: unknown) => Effect.Effect<McpClientRow, Requests.OAuthError | StorageError>
    /** Checks an authorization request's parameters (the query of `/oauth/authorize`). */
    readonly check: (params: Readonly<Record<string, string>>) => Effect.Effect<AuthorizeRequest, AuthorizeFailure>
    /** The owner approved `tools` (a subset of the requested ones): the redirect URI with a code. */
    readonly approve: (
      params: Readonly<Record<string, string>>,
      tools: ReadonlyArray<string>,
    ) => Effect.Effect<string, AuthorizeFailure>
    /** The owner refused: the redirect URI with `access_denied`. */
    readonly deny: (params: Readonly<Record<string, string>>) => Effect.Effect<string, AuthorizeFailure>
    /** The token endpoint (form parameters). */
    readonly token: (
      params: Readonly<Record<string, string>>,
    ) => Effect.Effect<Tokens.TokenResponse, Requests.OAuthError | StorageError>
    /** RFC 7009: revokes the grant of a token of ours; anything else is ignored. */
    readonly revoke: (token: string) => Effect.Effect<void, StorageError>
    /** The client principal of one of our access tokens, bound to this resource; none otherwise. */
    readonly authenticate: (bearer: string) => Effect.Effect<Option.Option<McpPrincipal>, StorageError>
    readonly list: Effect.Effect<ReadonlyArray<McpGrantView>, StorageError>
    readonly revokeGrant: (id: string) => Effect.Effect<boolean, StorageError>
  }
>() {}

const redirectWith = (redirectUri: string, params: Record<string, string | undefined>) => {
  const url = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.href
}

export const make = (input: McpGrantsOptions) =>
  Effect.gen(function* () {
    const store = yield* McpGrantStore
    const ids = yield* Ids
    const resource = Requests.canonicalResource(input.resource) ?? input.resource
    const options: Required<McpGrantsOptions> = { ...defaults, ...input, resource }
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const tokens = Tokens.make({ store, ids, options, now })

    const register = Effect.fn("McpGrants.register")(function* (body: unknown) {
      const metadata = Requests.clientMetadata(body)
      if (metadata instanceof Requests.OAuthError) return yield* metadata
      const at = yield* now
      if ((yield* store.countClients) >= options.maxClients) {
        yield* store.purgeUnusedClients(new Date(at.getTime() - Duration.toMillis(Duration.days(1))).toISOString())
        if ((yield* store.countClients) >= options.maxClients) {
          return yield* new Requests.OAuthError({
            error: "too_many_requests",
            description: "too many registered clients: try again tomorrow",
            status: 429,
          })
        }
      }
      const client: McpClientRow = { id: yield* ids.uuid, createdAt: at.toISOString(), ...metadata }
      yield* store.createClient(client)
      return client
    })

    const check = Effect.fn("McpGrants.check")(function* (params: Readonly<Record<string, string>>) {
      const notRedirectable = (error: string, description: string) =>
        new Requests.AuthorizeNotRedirectable({ error, description })
      for (const value of Object.values(params)) {
        if (value.length > Requests.limits.maxParam)
          return yield* notRedirectable("invalid_request", "a parameter is too long")
      }
      const client = params.client_id === undefined ? Option.none() : yield* store.getClient(params.client_id)
      if (Option.isNone(client)) return yield* notRedirectable("invalid_client", "unknown client_id: register first")
      const registered = client.value.redirectUris
      const redirectUri = params.redirect_uri ?? (registered.length === 1 ? registered[0] : undefined)
      // Exact string match (OAuth 2.1 §2.3.1): no prefix, no normalisation.
      if (redirectUri === undefined || !registered.includes(redirectUri)) {
        return yield* notRedirectable("invalid_request", "redirect_uri is not one the client registered")
      }
      const state = params.state
      const refuse = (error: string, description: string) =>
        new Requests.AuthorizeRedirect({ redirectUri, error, description, state })
      if (state !== undefined && state.length > Requests.limits.maxState) {
        return yield* refuse("invalid_request", "state is too long")
      }
      if (params.response_type !== "code")
        return yield* refuse("unsupported_response_type", 'response_type must be "code"')
      // PKCE is required, S256 only: no challenge, or "plain" (or none named, which means plain), is refused.
      if (params.code_challenge === undefined)
        return yield* refuse("invalid_request", "code_challenge is required (PKCE)")
      if (params.code_challenge_method !== "S256") {
        return yield* refuse("invalid_request", "code_challenge_method must be S256")
      }
      if (!Requests.codeChallengePattern.test(params.code_challenge)) {
        return yield* refuse("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)")
      }
      // RFC 8707: the only resource this server issues tokens for is its `/mcp`.
      if (params.resource !== undefined && Requests.canonicalResource(params.resource) !== resource) {
        return yield* refuse("invalid_target", `resource must be ${resource}`)
      }
      const tools = Requests.scopeTools(params.scope)
      if (typeof tools === "string") return yield* refuse("invalid_scope", tools)
      return {
        client: client.value,
        redirectUri,
        state,
        codeChallenge: params.code_challenge,
        resource,
        tools,
      } satisfies AuthorizeRequest
    })

    const approve = Effect.fn("McpGrants.approve")(function* (
      params: Readonly<Record<string, string>>,
      approved: ReadonlyArray<string>,
    ) {
      const request = yield* check(params)
      // Only tools the client asked for: the owner narrows a request, never widens it.
      const tools = request.tools.filter((tool) => approved.includes(tool))
      const code = yield* tokens.newSecret("code")
      const at = yield* now
      // Expired codes, tokens and ended grants go a day after they end (a consent is rare: cheap here).
      yield* store.purge(new Date(at.getTime() - Duration.toMillis(Duration.days(1))).toISOString())
      yield* store.createCode({
        hash: sha256(code),
        clientId: request.client.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        tools,
        createdAt: at.toISOString(),
        expiresAt: new Date(at.getTime() + Duration.toMillis(options.codeTtl)).toISOString(),
      })
      return redirectWith(request.redirectUri, { code, state: request.state, iss: options.issuer })
    })

    const deny = Effect.fn("McpGrants.deny")(function* (params: Readonly<Record<string, string>>) {
      const request = yield* check(params)
      return redirectWith(request.redirectUri, {
        error: "access_denied",
        error_description: "the owner refused",
        state: request.state,
        iss: options.issuer,
      })
    })

    const authenticate = (bearer: string) =>
      Effect.gen(function* () {
        if (!bearer.startsWith(Tokens.accessTokenPrefix) || bearer.length > 200) return Option.none<McpPrincipal>()
        const grant = yield* store.authenticate(sha256(bearer), (yield* now).toISOString())
        // A token bound to another resource (the public URL changed since) opens nothing here.
        if (Option.isNone(grant) || grant.value.resource !== resource) return Option.none<McpPrincipal>()
        return Option.some<McpPrincipal>({
          kind: "client",
          clientId: grant.value.clientId,
          clientName: grant.value.clientName,
          tools: grant.value.tools,
          grantId: grant.value.id,
        })
      })

    return McpGrants.of({
      options,
      register,
      check,
      approve,
      deny,
      token: tokens.token,
      revoke: tokens.revoke,
      authenticate,
      list: Effect.flatMap(now, (at) => store.listGrants(at.toISOString())),
      revokeGrant: (id) => Effect.flatMap(now, (at) => store.revokeGrant(id, at.toISOString())),
    })
  })

/** `McpGrants` over the grant store. */
export const layer = (options: McpGrantsOptions): Layer.Layer<McpGrants, never, McpGrantStore | Ids> =>
  Layer.effect(McpGrants, make(options))

/** Every tool `/mcp` has: the scopes a client may ask for. */
export const toolNames: ReadonlyArray<string> = mcpToolNames

/** Whether a tool only reads (the consent screen ticks those by default). */
export const toolKind = (name: string): "reads" | "writes" | undefined =>
  Object.hasOwn(mcpToolKinds, name) ? mcpToolKinds[name as keyof typeof mcpToolKinds] : undefined

/**
 * Who may call `/mcp` with OAuth on: the owner's API access tokens, or an access token this
 * server issued for its `/mcp` resource, checked against the store on every call (a revoked
 * grant fails on its very next request, on every replica).
 */
export const authorizer: Layer.Layer<McpAuthorizer, never, Auth.Auth | McpGrants> = Layer.effect(
  McpAuthorizer,
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const grants = yield* McpGrants
    return McpAuthorizer.of({
      authorize: (bearer) =>
        bearer?.startsWith(Tokens.tokenPrefix) === true
          ? grants
              .authenticate(bearer)
              .pipe(
                Effect.orDie,
                Effect.flatMap(
                  Option.match({ onNone: () => Effect.fail(new McpUnauthorized()), onSome: Effect.succeed }),
                ),
              )
          : authorizeOwner(auth, bearer),
    })
  }),
)

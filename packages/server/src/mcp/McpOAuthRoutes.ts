import { McpGrants, RateLimiter } from "@aide/kernel"
import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import { clientAddress, rateLimitBucket, type TrustProxy } from "../http/ClientAddress.js"
import { singleParams } from "./OAuthParams.js"

/** Where the console's consent screen lives: the authorize endpoint sends the browser there. */
export const consentPath = "/app/mcp/consent"

/** Paths whose bodies are OAuth's (form-encoded): the API-wide JSON-only check leaves them alone. */
export const isOAuthPath = (path: string) => path.startsWith("/oauth/")

const maxBodyBytes = 16 * 1024
const limits = {
  register: { limit: 20, window: Duration.minutes(1) },
  token: { limit: 30, window: Duration.minutes(1) },
} satisfies Record<string, RateLimiter.RateLimit>

// Token answers hold secrets: never cached (RFC 6749 §5.1).
const noStore = { "cache-control": "no-store", pragma: "no-cache" }

const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(
    { error, error_description: description },
    { status, headers: { ...noStore, ...headers } },
  )

/** The metadata documents (RFC 9728, RFC 8414) of `/mcp` and its authorization server. */
export const metadata = (options: McpGrants.McpGrantsOptions) => {
  const issuer = options.issuer
  return {
    resource: {
      resource: options.resource,
      authorization_servers: [issuer],
      scopes_supported: McpGrants.toolNames,
      bearer_methods_supported: ["header"],
      resource_name: "Aide",
    },
    authorizationServer: {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      scopes_supported: McpGrants.toolNames,
      authorization_response_iss_parameter_supported: true,
    },
  }
}

/**
 * `/mcp`'s OAuth 2.1 authorization server, as raw routes beside the HttpApi (its bodies are
 * form-encoded and its errors RFC 6749's, not the API's): the metadata documents, `/oauth/register`,
 * `/oauth/authorize` (on to the console's consent screen), `/oauth/token` and `/oauth/revoke`.
 */
export const layer = (options: { readonly trustProxy: TrustProxy }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const grants = yield* McpGrants.McpGrants
      const limiter = yield* RateLimiter.RateLimiter
      const documents = metadata(grants.options)

      const limited = (name: keyof typeof limits) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const bucket = rateLimitBucket(clientAddress(request, options.trustProxy))
          const decision = yield* limiter.consume(`/oauth/${name} ${bucket}`, limits[name])
          return decision.allowed
            ? undefined
            : oauthError(429, "too_many_requests", "too many requests: wait a minute", {
                "retry-after": String(Math.max(1, Math.ceil(Duration.toSeconds(decision.resetAfter)))),
              })
        })

      const body = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return Option.none<string>()
        const text = yield* request.text.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
          Effect.either,
        )
        return text._tag === "Left" ? Option.none<string>() : Option.some(text.right)
      })

      /** A form body's parameters (RFC 6749 §3.2), or the error response. */
      const form = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
        if (type !== "application/x-www-form-urlencoded") {
          return oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        const text = yield* body
        if (Option.isNone(text)) return oauthError(413, "invalid_request", `the body is over ${maxBodyBytes} bytes`)
        const params = singleParams(new URLSearchParams(text.value))
        return typeof params === "string" ? oauthError(400, "invalid_request", params) : params
      })

      const json = (value: unknown) =>
        HttpServerResponse.unsafeJson(value, { headers: { "cache-control": "max-age=300" } })
      yield* router.get("/.well-known/oauth-protected-resource/mcp", Effect.succeed(json(documents.resource)))
      // The root form too: clients that do not find the path-suffixed one try it (MCP spec).
      yield* router.get("/.well-known/oauth-protected-resource", Effect.succeed(json(documents.resource)))
      yield* router.get("/.well-known/oauth-authorization-server", Effect.succeed(json(documents.authorizationServer)))

      yield* router.post(
        "/oauth/register",
        Effect.gen(function* () {
          const refused = yield* limited("register")
          if (refused !== undefined) return refused
          const text = yield* body
          if (Option.isNone(text))
            return oauthError(413, "invalid_client_metadata", `the body is over ${maxBodyBytes} bytes`)
          let parsed: unknown
          try {
            parsed = JSON.parse(text.value)
          } catch {
            return oauthError(400, "invalid_client_metadata", "the body must be JSON")
          }
          return yield* grants.register(parsed).pipe(
            Effect.map((client) =>
              HttpServerResponse.unsafeJson(
                {
                  client_id: client.id,
                  client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
                  client_name: client.name,
                  redirect_uris: client.redirectUris,
                  token_endpoint_auth_method: "none",
                  grant_types: ["authorization_code", "refresh_token"],
                  response_types: ["code"],
                },
                { status: 201, headers: noStore },
              ),
            ),
            Effect.catchTag("OAuthError", (error) =>
              Effect.succeed(oauthError(error.status, error.error, error.description)),
            ),
            Effect.orDie,
          )
        }),
      )

      yield* router.get(
        "/oauth/authorize",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : ""
          const params = singleParams(new URLSearchParams(query))
          if (typeof params === "string") return oauthError(400, "invalid_request", params)
          return yield* grants.check(params).pipe(
            // Checked now, checked again when the owner decides: the consent screen shows only valid requests.
            Effect.as(HttpServerResponse.redirect(`${consentPath}?${query}`, { status: 302, headers: noStore })),
            Effect.catchTags({
              AuthorizeNotRedirectable: (error) => Effect.succeed(oauthError(400, error.error, error.description)),
              AuthorizeRedirect: (error) => {
                const url = new URL(error.redirectUri)
                url.searchParams.set("error", error.error)
                url.searchParams.set("error_description", error.description)
                if (error.state !== undefined) url.searchParams.set("state", error.state)
                url.searchParams.set("iss", grants.options.issuer)
                return Effect.succeed(HttpServerResponse.redirect(url.href, { status: 302, headers: noStore }))
              },
            }),
            Effect.orDie,
          )
        }),
      )

      yield* router.post(
        "/oauth/token",
        Effect.gen(function* () {
          const refused = yield* limited("token")
          if (refused !== undefined) return refused
          const params = yield* form
          if (HttpServerResponse.isServerResponse(params)) return params
          return yield* grants.token(params).pipe(
            Effect.map((tokens) => HttpServerResponse.unsafeJson(tokens, { headers: noStore })),
            Effect.catchTag("OAuthError", (error) =>
              Effect.succeed(oauthError(error.status, error.error, error.description)),
            ),
            Effect.orDie,
          )
        }),
      )

      yield* router.post(
        "/oauth/revoke",
        Effect.gen(function* () {
          const refused = yield* limited("token")
          if (refused !== undefined) return refused
          const params = yield* form
          if (HttpServerResponse.isServerResponse(params)) return params
          if (params.token === undefined) return oauthError(400, "invalid_request", "token is required")
          // RFC 7009 §2.2: 200 whether or not the token was ours or still valid.
          yield* grants.revoke(params.token).pipe(Effect.orDie)
          return HttpServerResponse.empty({ status: 200, headers: noStore })
        }),
      )
    }),
  )

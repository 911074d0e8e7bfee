import * as Crypto from "node:crypto"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js"
import { Clock, Context, Duration, Effect, Layer, Option, Runtime, Schema } from "effect"
import { redactText } from "../net/UrlRedaction.js"
import * as ClientSdk from "./ClientSdk.js"
import { McpOAuthStore } from "./McpOAuthStore.js"
import * as UrlGuard from "./UrlGuard.js"

/** The message of every OAuth server when the host configured no redirect URL. */
export const defaultDisabledMessage = "OAuth needs a public URL of this server"

/**
 * An authorization callback that cannot be completed (`message` says why, for the owner).
 * `serverId` is set when the state was valid (and is now used up): that server needs a new
 * authorization URL, e.g. `McpRegistry.reconnect`.
 */
export class McpOAuthError extends Schema.TaggedError<McpOAuthError>()("McpOAuthError", {
  message: Schema.String,
  serverId: Schema.optional(Schema.String),
}) {}

/**
 * OAuth for remote MCP servers (MCP authorization spec), on top of the MCP SDK's `auth()`:
 * discovery (RFC 9728, RFC 8414), dynamic client registration, PKCE S256 and the `resource`
 * parameter are the SDK's; this service persists what the SDK hands over, refuses authorization
 * servers without S256, binds every `state` to one server and one use, and guards every URL.
 *
 * @example
 * const transport = new StreamableHTTPClientTransport(new URL(url), {
 *   authProvider: oauth.provider({ id, url }, (authUrl) => pending.set(id, authUrl)),
 *   fetch: oauth.fetchFor(url),
 * })
 */
export class McpOAuth extends Context.Tag("@aide/kernel/McpOAuth")<
  McpOAuth,
  {
    /** The SDK's `authProvider` for one server; `onAuthorizationUrl` receives the URL to send the owner to. */
    readonly provider: (
      server: { readonly id: string; readonly url: string },
      onAuthorizationUrl: (url: URL) => void,
    ) => OAuthClientProvider
    /** Handles the callback: exchanges `code` for tokens and stores them; returns the server id. */
    readonly complete: (state: string, code: string) => Effect.Effect<string, McpOAuthError>
    /** Ends an authorization in flight without tokens (the owner denied it): the state is used up. */
    readonly cancel: (state: string) => Effect.Effect<string, McpOAuthError>
    /** Drops the stored registration, tokens and pending states of a removed server. */
    readonly forget: (serverId: string) => Effect.Effect<void>
    /**
     * A `fetch` refusing private and loopback targets unless `serverUrl` is on such a network,
     * adding the server's static `headers` to requests (and redirect hops) to its origin only.
     */
    readonly fetchFor: (serverUrl: string, headers?: Readonly<Record<string, string>>) => typeof fetch
  }
>() {}

export interface McpOAuthOptions {
  /**
   * Where the authorization server sends the owner's browser back: a complete URL of the host's
   * callback route, as the browser reaches it (the kernel knows no routes).
   */
  readonly redirectUrl: string
  /** How long an authorization URL stays good; default 30 minutes. */
  readonly stateTtl?: Duration.DurationInput
  /** Name resolution and fetch used by the URL guard (tests inject them). */
  readonly guard?: UrlGuard.GuardOptions
  /** `client_name` sent at dynamic registration; default "Aide". */
  readonly clientName?: string
}

/** The MCP spec requires refusing authorization servers that do not advertise PKCE with S256. */
const requireS256 = (
  authorizationServerUrl: string,
  metadata: { readonly code_challenge_methods_supported?: ReadonlyArray<string> | undefined } | undefined,
) => {
  if (metadata === undefined) {
    throw new Error(
      `Authorization server ${authorizationServerUrl} publishes no metadata; PKCE S256 support cannot be verified`,
    )
  }
  if (!metadata.code_challenge_methods_supported?.includes("S256")) {
    throw new Error(`Authorization server ${authorizationServerUrl} does not support PKCE with S256`)
  }
}

const randomState = () => Crypto.randomBytes(32).toString("base64url")

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Static headers are added under the guard, so each redirect hop is judged by its own origin. */
const guardedWithHeaders = (
  serverUrl: string,
  headers: Readonly<Record<string, string>>,
  guard: UrlGuard.GuardOptions = {},
) => UrlGuard.guardedFetch(serverUrl, { ...guard, headers })

/** `McpOAuth` keeping registrations, tokens and states in the `McpOAuthStore`. */
export const make = (options: McpOAuthOptions): Effect.Effect<McpOAuth["Type"], never, McpOAuthStore> =>
  Effect.gen(function* () {
    const store = yield* McpOAuthStore
    const runtime = yield* Effect.runtime<never>()
    const run = <A, E>(effect: Effect.Effect<A, E>) => Runtime.runPromise(runtime, effect)
    const redirectUrl = options.redirectUrl
    const stateTtl = Duration.toMillis(options.stateTtl ?? Duration.minutes(30))
    const clientMetadata: OAuthClientMetadata = {
      client_name: options.clientName ?? "Aide",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // A public client: PKCE protects the code, there is no secret to keep.
      token_endpoint_auth_method: "none",
    }
    const fetchFor = (serverUrl: string, headers: Readonly<Record<string, string>> = {}) =>
      guardedWithHeaders(serverUrl, headers, options.guard)

    const makeProvider = (
      server: { readonly id: string; readonly url: string },
      onAuthorizationUrl: (url: URL) => void,
      codeVerifier: string | undefined,
    ): OAuthClientProvider => {
      let pendingVerifier: string | undefined
      return {
        get redirectUrl() {
          return redirectUrl
        },
        get clientMetadata() {
          return clientMetadata
        },
        state: randomState,
        clientInformation: () =>
          run(store.clientInformation(server.id, server.url)) as Promise<OAuthClientInformationMixed | undefined>,
        saveClientInformation: (information) => run(store.saveClientInformation(server.id, server.url, information)),
        tokens: () => run(store.tokens(server.id, server.url)) as Promise<OAuthTokens | undefined>,
        saveTokens: (tokens) => run(store.saveTokens(server.id, server.url, tokens)),
        saveDiscoveryState: (state) => requireS256(state.authorizationServerUrl, state.authorizationServerMetadata),
        saveCodeVerifier: (verifier) => {
          pendingVerifier = verifier
        },
        codeVerifier: () => {
          if (codeVerifier === undefined) throw new Error("No authorization in progress")
          return codeVerifier
        },
        // The state travels in the URL; it is stored with this attempt's verifier only now that
        // the URL exists, so a state always names exactly one verifier and one server.
        redirectToAuthorization: async (authorizationUrl) => {
          const state = authorizationUrl.searchParams.get("state")
          if (state === null || pendingVerifier === undefined) throw new Error("Authorization URL without state")
          const now = await run(Clock.currentTimeMillis)
          await run(
            store.addPending(state, {
              serverId: server.id,
              serverUrl: server.url,
              codeVerifier: pendingVerifier,
              expiresAt: new Date(now + stateTtl),
            }),
          )
          onAuthorizationUrl(authorizationUrl)
        },
        invalidateCredentials: async (scope) => {
          if (scope === "all" || scope === "client" || scope === "tokens") await run(store.clear(server.id, scope))
        },
      }
    }

    const takeState = (state: string) =>
      Effect.gen(function* () {
        const pending = yield* store.takePending(state).pipe(Effect.orDie)
        if (Option.isNone(pending)) {
          return yield* new McpOAuthError({ message: "Unknown or already used authorization state" })
        }
        if (pending.value.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
          return yield* new McpOAuthError({
            message: "Authorization expired; start it again",
            serverId: pending.value.serverId,
          })
        }
        return pending.value
      })

    const complete = Effect.fn("McpOAuth.complete")(function* (state: string, code: string) {
      const pending = yield* takeState(state)
      const server = { id: pending.serverId, url: pending.serverUrl }
      const provider = makeProvider(server, () => {}, pending.codeVerifier ?? undefined)
      const sdk = yield* ClientSdk.load
      const result = yield* Effect.tryPromise({
        try: () =>
          sdk.auth(provider, { serverUrl: server.url, authorizationCode: code, fetchFn: fetchFor(server.url) }),
        catch: (error) =>
          new McpOAuthError({
            // The callback is public: no secret of the server URL in the answer.
            message: `Authorization failed: ${redactText(messageOf(error), server.url)}`,
            serverId: server.id,
          }),
      })
      if (result !== "AUTHORIZED") {
        return yield* new McpOAuthError({ message: "Authorization failed", serverId: server.id })
      }
      // Other URLs handed out for this server are stale now.
      yield* store.dropPending(server.id).pipe(Effect.orDie)
      return server.id
    })

    const cancel = Effect.fn("McpOAuth.cancel")(function* (state: string) {
      const pending = yield* takeState(state)
      return pending.serverId
    })

    const forget = Effect.fn("McpOAuth.forget")(function* (serverId: string) {
      yield* store.clear(serverId, "all")
      yield* store.dropPending(serverId)
    }, Effect.orDie)

    return {
      provider: (server, onAuthorizationUrl) => makeProvider(server, onAuthorizationUrl, undefined),
      complete,
      cancel,
      forget,
      fetchFor,
    }
  })

/** `McpOAuth` with its callback at `options.redirectUrl`. */
export const layer = (options: McpOAuthOptions): Layer.Layer<McpOAuth, never, McpOAuthStore> =>
  Layer.effect(McpOAuth, make(options))

export interface DisabledOptions {
  /** What servers with `oauth: true` report, e.g. which setting of the host enables OAuth. */
  readonly message?: string
  readonly guard?: UrlGuard.GuardOptions
}

/**
 * For hosts without a public URL: servers with `oauth: true` fail to connect with `message`;
 * the URL guard still applies.
 */
export const layerDisabled = (options: DisabledOptions = {}): Layer.Layer<McpOAuth> => {
  const disabledMessage = options.message ?? defaultDisabledMessage
  const guard = options.guard
  return Layer.succeed(McpOAuth, {
    provider: () => {
      const fail = () => {
        throw new Error(disabledMessage)
      }
      return {
        redirectUrl: undefined,
        clientMetadata: { redirect_uris: [] },
        clientInformation: fail,
        tokens: fail,
        saveTokens: fail,
        redirectToAuthorization: fail,
        saveCodeVerifier: fail,
        codeVerifier: fail,
      }
    },
    complete: () => Effect.fail(new McpOAuthError({ message: disabledMessage })),
    cancel: () => Effect.fail(new McpOAuthError({ message: disabledMessage })),
    forget: () => Effect.void,
    fetchFor: (serverUrl, headers = {}) => guardedWithHeaders(serverUrl, headers, guard),
  })
}

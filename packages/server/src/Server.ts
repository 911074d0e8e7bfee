import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as Path from "node:path"
import { Kernel, type McpAuthorizer, McpEndpoint, McpGrants, SigningSecret, StreamHub } from "@aide/kernel"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
// Not the "@effect/platform-node" barrel: it re-exports undici (1 MB), evaluated at every start.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { AideApi } from "./api/AideApi.js"
import { callbackUrl } from "./api/McpOAuthApi.js"
import * as AuthHandlers from "./handlers/AuthHandlers.js"
import * as ChatHandlers from "./handlers/ChatHandlers.js"
import * as ConfigHandlers from "./handlers/ConfigHandlers.js"
import * as InboxHandlers from "./handlers/InboxHandlers.js"
import * as McpGrantsHandlers from "./handlers/McpGrantsHandlers.js"
import * as McpHandlers from "./handlers/McpHandlers.js"
import * as McpOAuthHandlers from "./handlers/McpOAuthHandlers.js"
import * as MemoryHandlers from "./handlers/MemoryHandlers.js"
import * as ModelsHandlers from "./handlers/ModelsHandlers.js"
import * as PluginsHandlers from "./handlers/PluginsHandlers.js"
import * as PushHandlers from "./handlers/PushHandlers.js"
import * as ScheduleHandlers from "./handlers/ScheduleHandlers.js"
import * as StatusHandlers from "./handlers/StatusHandlers.js"
import * as ThreadsHandlers from "./handlers/ThreadsHandlers.js"
import * as Authentication from "./http/Authentication.js"
import * as Console from "./http/Console.js"
import * as Cors from "./http/Cors.js"
import * as DirectReconnects from "./http/DirectReconnects.js"
import * as ErrorHandling from "./http/ErrorHandling.js"
import * as HostCheck from "./http/HostCheck.js"
import { lazyDocs, lazyOpenApi } from "./http/LazyDocs.js"
import * as RateLimit from "./http/RateLimit.js"
import * as SlowClients from "./http/SlowClients.js"
import * as Webhooks from "./http/Webhooks.js"
import * as McpOAuthRoutes from "./mcp/McpOAuthRoutes.js"
import * as McpRoute from "./mcp/McpRoute.js"
import * as MetricsRoute from "./metrics/MetricsRoute.js"
import * as RequestMetrics from "./metrics/RequestMetrics.js"
import * as RequestSpan from "./metrics/RequestSpan.js"
import * as Tracing from "./metrics/Tracing.js"
import { bundledPluginFolders } from "./process/BundledPlugins.js"
import { postgresReplicas, postgresStorage } from "./process/PostgresLayers.js"
import { replicaIdentity } from "./process/ReplicaIdentity.js"
import { redisMechanisms } from "./ScaleOut.js"
import { replicasProblem, type ServerConfig, secretsProblem } from "./ServerConfig.js"
import * as WebHandler from "./serverless/WebHandler.js"

export type { WebHandlerOptions } from "./serverless/WebHandler.js"
export { WebHandlerOptionsError } from "./serverless/WebHandler.js"

import { version } from "./version.js"

export interface ServerOptions extends ServerConfig {
  /** Replace parts of the kernel (password hasher, rate limiter, token lifetimes…), e.g. in tests. */
  readonly kernel?: Partial<Omit<Kernel.KernelOptions, "dataDir">>
  /** Environment holding provider API keys (`OPENAI_API_KEY`…); default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Interval of keep-alive comments on idle chat streams; default 15 s. */
  readonly chatHeartbeat?: Duration.DurationInput
  /** Bytes a reconnected chat client may fall behind before it is dropped; default 1 MiB. */
  readonly chatMaxLagBytes?: number
  /** The built web console served at `/app/`; default `packages/console/dist` (`AIDE_CONSOLE_DIR`). */
  readonly consoleDir?: string
  /**
   * Who may call `/mcp` (docs/mcp-server.md): default `McpAuthorizer.layerOwner`, the owner's
   * API access tokens only. An OAuth Layer accepts those and tokens issued for `/mcp`.
   */
  readonly mcpAuthorizer?: Layer.Layer<McpAuthorizer.McpAuthorizer, never, Kernel.KernelServices>
  /** Lifetimes and bounds of `/mcp`'s OAuth server (docs/mcp-server.md "OAuth"), e.g. in tests. */
  readonly mcpGrants?: Partial<Omit<McpGrants.McpGrantsOptions, "resource" | "issuer">>
}

/** `AIDE_PUBLIC_URL` when unset: the listening address (right when browsers reach the server there). */
const defaultPublicUrl = (options: ServerOptions) =>
  `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`

/**
 * `/mcp`'s OAuth server: its issuer is the public origin (`AIDE_PUBLIC_URL`), its one resource
 * `<origin>/mcp`, so tokens it issued stop working if the public URL changes.
 */
export const mcpGrantsLayer = (options: ServerOptions) => {
  const origin = new URL(options.publicUrl ?? defaultPublicUrl(options)).origin
  return McpGrants.layer({ resource: `${origin}/mcp`, issuer: origin, ...options.mcpGrants })
}

/**
 * Who may call `/mcp`: `options.mcpAuthorizer`, else the owner's API access tokens and the
 * OAuth tokens `/mcp`'s authorization server issued (`McpGrants.authorizer`).
 */
export const mcpAuthorizerLayer = (
  options: ServerOptions,
): Layer.Layer<McpAuthorizer.McpAuthorizer, never, Kernel.KernelServices> =>
  options.mcpAuthorizer ?? McpGrants.authorizer.pipe(Layer.provide(mcpGrantsLayer(options)))

/** The kernel as configured by `options`: SQLite by default, PostgreSQL with a database URL. */
export const kernelLayer = (options: ServerOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const problem = replicasProblem(options) ?? secretsProblem(options)
      if (problem !== undefined) return yield* Effect.dieMessage(problem)
      const hub: StreamHub.StreamHubOptions = {
        ...(options.streamMaxSubscribersPerStream === undefined
          ? {}
          : { maxSubscribersPerStream: options.streamMaxSubscribersPerStream }),
        ...(options.streamMaxSubscribers === undefined ? {} : { maxSubscribers: options.streamMaxSubscribers }),
      }
      const signingSecret = Option.isSome(options.jwtSecret)
        ? yield* SigningSecret.fromString(Redacted.value(options.jwtSecret.value)).pipe(
            Effect.mapError(
              (error) => new SigningSecret.SigningSecretError({ message: `AIDE_JWT_SECRET: ${error.message}` }),
            ),
          )
        : undefined
      const storage = Option.isSome(options.databaseUrl)
        ? postgresStorage(options.databaseUrl.value, options.databaseTimeoutSeconds)
        : undefined
      return Kernel.layer({
        dataDir: options.dataDir,
        ...(storage === undefined
          ? {}
          : {
              storage,
              ...postgresReplicas(storage, options.leaseTtlSeconds, yield* replicaIdentity(options.dataDir)),
            }),
        ...(signingSecret === undefined ? {} : { signingSecret }),
        env: options.env ?? process.env,
        mcpOAuth: { redirectUrl: callbackUrl(options.publicUrl ?? defaultPublicUrl(options)) },
        plugins: {
          pluginsDir: Path.join(options.dataDir, "plugins"),
          paths: options.pluginsPath ?? [],
          bundled: bundledPluginFolders(),
          env: options.env ?? process.env,
        },
        streamHub: StreamHub.layerMemory(hub),
        ...(yield* redisMechanisms(options, hub)),
        ...options.kernel,
        // Run bounds from the environment; a kernel override (tests) wins field by field.
        chat: {
          ...(options.runMaxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.runMaxAnswerBytes }),
          ...(options.runIdleTimeoutSeconds === undefined
            ? {}
            : { idleTimeout: Duration.seconds(options.runIdleTimeoutSeconds) }),
          ...options.kernel?.chat,
        },
      })
    }),
  )

/** The HttpApi with its handlers and middleware, needing only the kernel's services. */
export const apiLayer = (options: ServerOptions, mode: { readonly serverless?: boolean } = {}) =>
  HttpApiBuilder.api(AideApi).pipe(
    Layer.provide([
      StatusHandlers.layer({ name: "aide", version, runtime: "node", serverless: mode.serverless === true }),
      AuthHandlers.layer({ trustProxy: options.trustProxy }),
      ChatHandlers.layer({
        ...(options.chatHeartbeat === undefined ? {} : { heartbeat: options.chatHeartbeat }),
        ...(options.chatMaxLagBytes === undefined ? {} : { maxLagBytes: options.chatMaxLagBytes }),
      }),
      ThreadsHandlers.layer,
      ConfigHandlers.layer,
      ModelsHandlers.layer,
      PluginsHandlers.layer,
      InboxHandlers.layer,
      InboxHandlers.destinationsLayer,
      ScheduleHandlers.layer,
      McpHandlers.layer,
      McpOAuthHandlers.layer,
      McpGrantsHandlers.layer,
      MemoryHandlers.layer,
      PushHandlers.layer,
    ]),
    // Merged, not only provided: the requests' context then holds every service the groups were
    // built with, so the (patched) HttpApiBuilder hands each handler that context as it is rather
    // than a copy of every service merged per request (patches/README.md).
    Layer.provideMerge(
      Layer.mergeAll(
        Authentication.layer,
        RateLimit.layer({ trustProxy: options.trustProxy }),
        mcpGrantsLayer(options),
      ),
    ),
  )

/**
 * Node's `server.close()` stops accepting and drops idle connections, but a keep-alive
 * connection whose request is in flight stays open for the keep-alive timeout (~5 s) after its
 * answer, holding up shutdown. Once the server is closing, each answer closes its connection.
 */
const createHttpServer = (options: ServerOptions, direct: DirectReconnects.DirectRoutes) => () => {
  // Header, request and public-body deadlines (http/SlowClients.ts); answers may stream for hours.
  const server = createServer(SlowClients.nodeOptions(options))
  SlowClients.watchPublicBodies(server, options)
  // Chat reconnects the direct path takes never reach the Effect stack's listener (see
  // http/DirectReconnects); those it leaves, or passes back, go there as usual.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>) => {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      RequestMetrics.stamp(request)
      if (direct.handle?.(request, response, () => emit(event, ...args))) return true
    }
    return emit(event, ...args)
  }) as typeof server.emit
  server.on("request", (_request, response) => {
    response.on("finish", () => {
      if (!server.listening) server.closeIdleConnections()
    })
  })
  return server
}

const hostCheckOptions = (options: ServerOptions): HostCheck.HostCheckOptions => ({
  allowedHosts: options.allowedHosts ?? [],
  host: options.host,
  publicUrl: options.publicUrl,
  corsOrigins: options.corsOrigins ?? [],
})

/**
 * The whole server: kernel, API, OpenAPI at `/api/openapi.json`, docs at `/api/docs`, listening
 * on `options.host:options.port`. Build it (e.g. `Layer.launch`) to serve; closing its scope
 * stops accepting, lets in-flight requests finish and closes the database. The kernel's services
 * (`Threads`, `Auth`…) are part of its output.
 */
export const layer = (options: ServerOptions) => {
  const direct: DirectReconnects.DirectRoutes = {}
  return (
    // Spans per request cost ~25% of throughput: only made when something exports them. The
    // platform's own request span is off (Tracing.platformServerSpansOff): it exports secrets.
    HttpApiBuilder.serve(options.otlpEndpoint === undefined ? undefined : RequestSpan.middleware).pipe(
      Layer.provide(RequestMetrics.layer), // counts every answer as it is written
      Layer.provide(
        MetricsRoute.layer({ metricsToken: options.metricsToken ?? Option.none(), trustProxy: options.trustProxy }),
      ),
      Layer.provide(lazyDocs("/api/docs")),
      Layer.provide(lazyOpenApi("/api/openapi.json")),
      // The web console (static files, its own CSP) and the browser's way to it from `/`.
      Layer.provide(Console.layer({ dir: options.consoleDir ?? process.env.AIDE_CONSOLE_DIR })),
      Layer.provide(Console.rootRedirect),
      // Channel plugins' webhooks: public raw routes beside the HttpApi (see docs/channels.md).
      Layer.provide(
        Webhooks.layer({
          trustProxy: options.trustProxy,
          ...(options.kernel?.channelGateway?.webhooks?.maxBodyBytes === undefined
            ? {}
            : { maxBodyBytes: options.kernel.channelGateway.webhooks.maxBodyBytes }),
        }),
      ),
      // Aide's own MCP endpoint (docs/mcp-server.md): a raw route beside the HttpApi.
      Layer.provide(
        McpRoute.layer({ publicUrl: options.publicUrl }).pipe(
          Layer.provide(
            McpEndpoint.layer({
              version,
              maxBodyBytes: options.maxBodyBytes,
              allowedOrigins: [
                ...(options.corsOrigins ?? []),
                ...(options.publicUrl === undefined ? [] : [new URL(options.publicUrl).origin]),
              ],
            }),
          ),
          Layer.provide(mcpAuthorizerLayer(options)),
        ),
      ),
      // `/mcp`'s OAuth authorization server: metadata, registration, authorize, token, revoke.
      Layer.provide(
        McpOAuthRoutes.layer({ trustProxy: options.trustProxy }).pipe(Layer.provide(mcpGrantsLayer(options))),
      ),
      // Outermost: a foreign Host (DNS rebinding) or Origin is refused before anything else runs.
      Layer.provide(HostCheck.layer(hostCheckOptions(options))),
      Layer.provide(HostCheck.startupWarning(hostCheckOptions(options))),
      // Open requests per client on the public routes, counted before any body is read (429 past it).
      Layer.provide(SlowClients.capLayer(options)),
      // Built after ErrorHandling, so it wraps it: its 413/415/404 answers carry the CORS headers too.
      Layer.provide(Cors.layer(options.corsOrigins ?? [])),
      Layer.provide(
        ErrorHandling.layer({ maxBodyBytes: options.maxBodyBytes, chatMaxBodyBytes: options.chatMaxBodyBytes }),
      ),
      Layer.provide(apiLayer(options)),
      Layer.provide(
        DirectReconnects.layer(direct, {
          hostCheck: hostCheckOptions(options),
          heartbeat: options.chatHeartbeat ?? DirectReconnects.defaultHeartbeat,
          maxLagBytes: options.chatMaxLagBytes,
        }),
      ),
      Layer.provideMerge(
        NodeHttpServer.layer(createHttpServer(options, direct), { port: options.port, host: options.host }),
      ),
      // Kept in the output: embedders (and tests seeding data) reach the same kernel services.
      Layer.provideMerge(kernelLayer(options)),
      // Without OpenTelemetry every span (Effect.fn, @effect/sql's per-query spans) is a no-op:
      // building them cost ~10% of an authenticated request.
      Layer.provide(Tracing.fromConfig(options, version)),
    )
  )
}

/** The address the server listens on, as a base URL (`http://127.0.0.1:4111`). */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname.includes(":") ? `[${server.address.hostname}]` : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`,
)

/**
 * The API as a fetch-style handler, `(Request) => Promise<Response>`, for hosts that hand over
 * web `Request`s (serverless and edge functions, `Deno.serve`, `Bun.serve`) and for tests: the
 * kernel, handlers, error handling, CORS and `/api/openapi.json` of {@link layer}, with no
 * socket. Left to the host: the Host/Origin check, channel webhooks and the API docs page.
 * `port` and `host` only feed the default public URL. `dispose` closes the kernel and database.
 * Throws `WebHandlerOptionsError` for a `cronSecret` or `metricsToken` shorter than 32 bytes.
 * With `serverless: true`, nothing outlives a request (docs/operations.md "Serverless").
 *
 * @example
 * const { handler, dispose } = Server.webHandler(options)
 * const response = await handler(new Request("http://aide.local/"))
 */
export const webHandler = (options: WebHandler.WebHandlerOptions): WebHandler.WebHandler => {
  // Now, not at the first request: a host deploying a short secret learns at once.
  const problem = secretsProblem(options)
  if (problem !== undefined) throw new WebHandler.WebHandlerOptionsError({ message: problem })
  const serverless = options.serverless === true
  const kernel = kernelLayer(serverless ? WebHandler.serverlessKernel(options) : options)
  return WebHandler.make(
    options,
    lazyOpenApi("/api/openapi.json").pipe(
      Layer.provide(HttpApiBuilder.middleware(RequestMetrics.middleware)),
      Layer.provide(
        MetricsRoute.layer({ metricsToken: options.metricsToken ?? Option.none(), trustProxy: options.trustProxy }),
      ),
      Layer.provide(Cors.layer(options.corsOrigins ?? [])),
      Layer.provide(ErrorHandling.layer(options)),
      Layer.provideMerge(apiLayer(options, { serverless })),
      Layer.provideMerge(kernel),
      Layer.provideMerge(HttpServer.layerContext),
      Layer.provide(Tracing.fromConfig(options, version)),
    ),
  )
}

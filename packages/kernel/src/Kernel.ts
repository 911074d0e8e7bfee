import * as Path from "node:path"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, type Redacted } from "effect"
import * as AccessTokens from "./auth/AccessTokens.js"
import * as Auth from "./auth/Auth.js"
import * as AuthConfig from "./auth/AuthConfig.js"
import * as PasswordHasher from "./auth/PasswordHasher.js"
import * as SigningSecret from "./auth/SigningSecret.js"
import * as SqlAuthStore from "./auth/SqlAuthStore.js"
import * as ChannelRegistry from "./channels/ChannelRegistry.js"
import * as Chat from "./chat/Chat.js"
import type * as ChatRuns from "./chat/ChatRuns.js"
import * as SqlChatRuns from "./chat/SqlChatRuns.js"
import * as StreamHub from "./chat/StreamHub.js"
import * as TitleGenerator from "./chat/TitleGenerator.js"
import * as AppConfig from "./config/AppConfig.js"
import * as SqlConfigStore from "./config/SqlConfigStore.js"
import * as Ids from "./ids/Ids.js"
import type * as Inbox from "./inbox/Inbox.js"
import * as SqlInbox from "./inbox/SqlInbox.js"
import * as McpOAuth from "./mcp/McpOAuth.js"
import * as McpRegistry from "./mcp/McpRegistry.js"
import * as ModelRegistry from "./models/ModelRegistry.js"
import * as RateLimiter from "./ratelimit/RateLimiter.js"
import type * as Scheduler from "./scheduler/Scheduler.js"
import * as SqlScheduler from "./scheduler/SqlScheduler.js"
import * as SqliteStorage from "./storage/SqliteStorage.js"
import type { StorageError } from "./storage/StorageError.js"
import * as ActiveStreams from "./threads/ActiveStreams.js"
import * as SqlThreads from "./threads/SqlThreads.js"
import type * as Threads from "./threads/Threads.js"
import * as BuiltinTools from "./tools/BuiltinTools.js"
import * as ToolRegistry from "./tools/ToolRegistry.js"
import * as Tools from "./tools/Tools.js"

export interface KernelOptions {
  /** Where the SQLite database and the generated signing secret live. */
  readonly dataDir: string
  /** Storage providing `SqlClient`; default `SqliteStorage.layer` on `<dataDir>/aide.db`. */
  readonly storage?: Layer.Layer<SqlClient.SqlClient, StorageError>
  /** Access-token key (≥ 32 bytes); default: generated once into `<dataDir>/jwt-secret` (0600). */
  readonly signingSecret?: Redacted.Redacted<Uint8Array>
  /** Token lifetimes and password rules; default SPEC values. */
  readonly auth?: Partial<AuthConfig.AuthSettings>
  /** Default: argon2id with OWASP parameters. */
  readonly passwordHasher?: Layer.Layer<PasswordHasher.PasswordHasher>
  /** Default: in-memory fixed windows. */
  readonly rateLimiter?: Layer.Layer<RateLimiter.RateLimiter>
  /** The host's environment, for provider API keys (the kernel never reads `process.env`); default `{}`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Default: `ModelRegistry.layer({ env })`, the provider catalogue configured from `env`. */
  readonly modelRegistry?: Layer.Layer<ModelRegistry.ModelRegistry>
  /** Live chat streams; default: in this process's memory, replayable 60 s after they finish. */
  readonly streamHub?: Layer.Layer<StreamHub.StreamHub>
  /** Thread titles; default: asked of the operator model (`TitleGenerator.layerModel`). */
  readonly titles?: Layer.Layer<TitleGenerator.TitleGenerator, never, AppConfig.AppConfig | ModelRegistry.ModelRegistry>
  /** Chat run settings (e.g. provider retries). */
  readonly chat?: Chat.ChatOptions
  /** Channels to register (e.g. `ChannelRegistry.channel(telegram)`); default none. */
  readonly channels?: Layer.Layer<never, never, ChannelRegistry.ChannelRegistry>
  /** Your own tools (e.g. `ToolRegistry.source({ id: "crm", kind: "plugin", tools })`); default none. */
  readonly tools?: Layer.Layer<never, never, ToolRegistry.ToolRegistry>
  /** Retry policy of channel deliveries; default `SqlInbox.defaults` (4 attempts, 1 s × 5 backoff). */
  readonly inbox?: SqlInbox.DeliveryOptions
  /** MCP connection timeouts; `env` defaults to `options.env` (a server only gets the variables it names). */
  readonly mcp?: McpRegistry.McpRegistryOptions
  /** OAuth for remote MCP servers (callback under `publicUrl`); without it, `oauth: true` servers report "OAuth needs AIDE_PUBLIC_URL". */
  readonly mcpOAuth?: McpOAuth.McpOAuthOptions
  /** Scheduled tasks and heartbeat; `{ enabled: false }` keeps the firing loop off (tasks stay editable). */
  readonly scheduler?: SqlScheduler.SchedulerOptions
}

/** Everything the default kernel provides. */
export type KernelServices =
  | Auth.Auth
  | AppConfig.AppConfig
  | ModelRegistry.ModelRegistry
  | RateLimiter.RateLimiter
  | SqlClient.SqlClient
  | Threads.Threads
  | ActiveStreams.ActiveStreams
  | StreamHub.StreamHub
  | Chat.Chat
  | Ids.Ids
  | ChannelRegistry.ChannelRegistry
  | Inbox.Inbox
  | ToolRegistry.ToolRegistry
  | Tools.Tools
  | ChatRuns.ChatRuns
  | McpRegistry.McpRegistry
  | McpOAuth.McpOAuth
  | Scheduler.Scheduler

export type KernelError = StorageError | SigningSecret.SigningSecretError

/**
 * The default composition of the kernel: SQLite storage in `dataDir`, argon2id, in-memory rate
 * limits. Every part can be replaced through `options`, or by composing the Layers yourself.
 *
 * @example
 * const kernel = Kernel.layer({ dataDir: "./.aide" })
 * const program = Effect.flatMap(Auth.Auth, (auth) => auth.isSetup)
 * Effect.runPromise(Effect.provide(program, kernel))
 */
export const layer = (options: KernelOptions): Layer.Layer<KernelServices, KernelError> => {
  const storage = options.storage ?? SqliteStorage.layer({ filename: Path.join(options.dataDir, "aide.db") })
  const secret =
    options.signingSecret === undefined
      ? SigningSecret.loadOrCreate(Path.join(options.dataDir, "jwt-secret"))
      : Effect.succeed(options.signingSecret)
  const accessTokens = Layer.unwrapEffect(Effect.map(secret, (key) => AccessTokens.layer({ secret: key })))
  const auth = Auth.layer.pipe(
    Layer.provide([SqlAuthStore.layer, options.passwordHasher ?? PasswordHasher.layer, accessTokens, Ids.layer]),
    Layer.provide(AuthConfig.layer(options.auth)),
  )
  const threads = SqlThreads.layer.pipe(Layer.provide(Ids.layer))
  const modelRegistry = options.modelRegistry ?? ModelRegistry.layer({ env: options.env ?? {} })
  // The config accepts the providers of the registry in use (one instance: layers are memoized).
  const appConfig = AppConfig.layer.pipe(Layer.provide([SqlConfigStore.layer, modelRegistry]))
  const base = Layer.mergeAll(
    auth,
    appConfig,
    modelRegistry,
    threads,
    options.rateLimiter ?? RateLimiter.layerMemory,
    Ids.layer,
    ToolRegistry.layer,
  ).pipe(Layer.provideMerge(storage))
  const chat = Chat.layer(options.chat).pipe(
    Layer.provide([options.titles ?? TitleGenerator.layerModel, Ids.layer]),
    Layer.provideMerge(Layer.mergeAll(Tools.layer, SqlChatRuns.layer)),
  )
  // GET /api/threads reports the hub's running streams.
  const activeStreams = Layer.effect(
    ActiveStreams.ActiveStreams,
    Effect.map(StreamHub.StreamHub, (hub) => ({ threadIds: hub.activeThreadIds })),
  )
  // Channels register before the inbox starts, so its first sweep already finds them.
  const channels = Layer.provideMerge(options.channels ?? Layer.empty, ChannelRegistry.layer)
  const inbox = SqlInbox.layerWith(options.inbox ?? {}).pipe(Layer.provide(Ids.layer), Layer.provideMerge(channels))
  // Connects in background fibers: a slow or broken MCP server never holds up startup.
  const mcp = McpRegistry.layer({ env: options.env ?? {}, ...options.mcp }).pipe(
    Layer.provideMerge(options.mcpOAuth === undefined ? McpOAuth.layerDisabled() : McpOAuth.layer(options.mcpOAuth)),
  )
  // `current_time` and `notify`: registered once the inbox they write to is up.
  const builtinTools = Layer.mergeAll(BuiltinTools.layer.pipe(Layer.provide(inbox)), options.tools ?? Layer.empty)
  // Runs prompts through chat and delivers to the inbox; neither of them knows the scheduler.
  const scheduler = SqlScheduler.layerWith(options.scheduler ?? {}).pipe(Layer.provide([chat, inbox, Ids.layer]))
  return Layer.mergeAll(chat, activeStreams, inbox, mcp, builtinTools, scheduler).pipe(
    Layer.provideMerge(options.streamHub ?? StreamHub.layerMemory()),
    Layer.provideMerge(base),
  )
}

import * as Path from "node:path"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer, type Redacted } from "effect"
import * as AccessTokens from "./auth/AccessTokens.js"
import * as Auth from "./auth/Auth.js"
import * as AuthConfig from "./auth/AuthConfig.js"
import type { AuthStore } from "./auth/AuthStore.js"
import * as PasswordHasher from "./auth/PasswordHasher.js"
import * as SigningSecret from "./auth/SigningSecret.js"
import * as ChannelRegistry from "./channels/ChannelRegistry.js"
import type { ChannelConversations } from "./channels/gateway/ChannelConversations.js"
import * as ChannelGateway from "./channels/gateway/ChannelGateway.js"
import * as Chat from "./chat/Chat.js"
import type { ChatRuns } from "./chat/ChatRuns.js"
import * as StreamHub from "./chat/StreamHub.js"
import * as TitleGenerator from "./chat/TitleGenerator.js"
import * as AppConfig from "./config/AppConfig.js"
import type { ConfigStore } from "./config/ConfigStore.js"
import * as Ids from "./ids/Ids.js"
import * as DeliveringInbox from "./inbox/DeliveringInbox.js"
import type * as Inbox from "./inbox/Inbox.js"
import type { InboxStore } from "./inbox/InboxStore.js"
import * as McpOAuth from "./mcp/McpOAuth.js"
import type { McpOAuthStore } from "./mcp/McpOAuthStore.js"
import * as McpRegistry from "./mcp/McpRegistry.js"
import * as Memory from "./memory/Memory.js"
import type { MemoryStore } from "./memory/MemoryStore.js"
import type { ObservationStore } from "./memory/observational/ObservationStore.js"
import * as Recall from "./memory/recall/Recall.js"
import * as RecallIndex from "./memory/recall/RecallIndex.js"
import * as ModelRegistry from "./models/ModelRegistry.js"
import * as PluginLoader from "./plugins/loader/PluginLoader.js"
import * as PluginCatalog from "./plugins/PluginCatalog.js"
import * as RateLimiter from "./ratelimit/RateLimiter.js"
import type { RunLedger } from "./scheduler/RunLedger.js"
import * as Scheduler from "./scheduler/Scheduler.js"
import * as SqliteStorage from "./storage/SqliteStorage.js"
import type { StorageError } from "./storage/StorageError.js"
import type { Stores } from "./stores/SqlStores.js"
import * as SqlStores from "./stores/SqlStores.js"
import * as ActiveStreams from "./threads/ActiveStreams.js"
import type { Threads } from "./threads/Threads.js"
import * as BuiltinTools from "./tools/BuiltinTools.js"
import * as ToolRegistry from "./tools/ToolRegistry.js"
import * as Tools from "./tools/Tools.js"

/** Settings of the services' logic (no implementations: those are the Tags of `ServiceRequirements`). */
export interface ServicesOptions {
  /** Token lifetimes and password rules; default SPEC values. */
  readonly auth?: Partial<AuthConfig.AuthSettings>
  /** Chat run settings (e.g. provider retries, answer bounds). */
  readonly chat?: Chat.ChatOptions
  /** Channels to register (e.g. `ChannelRegistry.channel(telegram)`); default none. */
  readonly channels?: Layer.Layer<never, never, ChannelRegistry.ChannelRegistry>
  /** Channel plugins' endpoints to register (e.g. `ChannelGateway.endpoint(telegram)`); the loader registers its own. */
  readonly channelEndpoints?: Layer.Layer<never, never, ChannelGateway.ChannelGateway>
  /** Realtime backoff, per-conversation queue and webhook limits of the channel gateway. */
  readonly channelGateway?: ChannelGateway.ChannelGatewayOptions
  /** Your own tools (e.g. `ToolRegistry.source({ id: "crm", kind: "plugin", tools })`); default none. */
  readonly tools?: Layer.Layer<never, never, ToolRegistry.ToolRegistry>
  /** Retry policy of channel deliveries; default `DeliveringInbox.defaults` (4 attempts, 1 s × 5 backoff). */
  readonly inbox?: DeliveringInbox.DeliveryOptions
  /** MCP connection timeouts and the environment stdio servers may name (default `{}`). */
  readonly mcp?: McpRegistry.McpRegistryOptions
  /**
   * OAuth for remote MCP servers: `redirectUrl` is the host's callback route, complete. Without
   * it, servers with `oauth: true` report `McpOAuth.defaultDisabledMessage`.
   */
  readonly mcpOAuth?: McpOAuth.McpOAuthOptions
  /** Scheduled tasks and heartbeat; `{ enabled: false }` keeps the firing loop off (tasks stay editable). */
  readonly scheduler?: Scheduler.SchedulerOptions
  /** Observational memory: claim lease and circuit breaker settings. */
  readonly memory?: Memory.ObservationalOptions
  /** Where plugins are found and the environment their declared variables are checked in. */
  readonly plugins?: PluginCatalog.PluginCatalogOptions
  /** How plugin processes run: limits, and the egress policy of their brokered `fetch`. */
  readonly pluginLoader?: PluginLoader.PluginLoaderOptions
}

/** What the services Layer needs from outside: every store and every replaceable mechanism. */
export type ServiceRequirements =
  | Stores
  | AccessTokens.AccessTokens
  | PasswordHasher.PasswordHasher
  | RateLimiter.RateLimiter
  | StreamHub.StreamHub
  | ModelRegistry.ModelRegistry
  | TitleGenerator.TitleGenerator
  | Ids.Ids

/** What the services Layer provides: the kernel's logic. */
export type Services =
  | Auth.Auth
  | AppConfig.AppConfig
  | Chat.Chat
  | Tools.Tools
  | ToolRegistry.ToolRegistry
  | ChannelRegistry.ChannelRegistry
  | ChannelGateway.ChannelGateway
  | ActiveStreams.ActiveStreams
  | Inbox.Inbox
  | McpRegistry.McpRegistry
  | McpOAuth.McpOAuth
  | Memory.Memory
  | Recall.Recall
  | PluginCatalog.PluginCatalog
  | PluginLoader.PluginLoader
  | Scheduler.Scheduler

/**
 * All of the kernel's logic, and nothing it keeps data in or talks to: it requires only Tags
 * (`ServiceRequirements`), the way `@effect/cluster`'s `Sharding.layer` leaves `MessageStorage`
 * to you. Provide them from `SqlStores.layer` and the defaults (that is `Kernel.layer`), or from
 * your own Layers; every service then uses yours.
 */
export const services = (options: ServicesOptions = {}): Layer.Layer<Services, StorageError, ServiceRequirements> => {
  const auth = Auth.layer.pipe(Layer.provide(AuthConfig.layer(options.auth)))
  const chat = Chat.layer(options.chat).pipe(Layer.provideMerge(Tools.layer))
  // GET /api/threads reports the hub's running streams.
  const activeStreams = Layer.effect(
    ActiveStreams.ActiveStreams,
    Effect.map(StreamHub.StreamHub, (hub) => ({ threadIds: hub.activeThreadIds })),
  )
  // Channels register before the inbox starts, so its first sweep already finds them.
  const channels = Layer.provideMerge(options.channels ?? Layer.empty, ChannelRegistry.layer)
  const inbox = DeliveringInbox.layer(options.inbox).pipe(Layer.provideMerge(channels))
  // Channel plugins talk to chat and register their notifiers in the inbox's registry.
  const gateway = Layer.provideMerge(
    options.channelEndpoints ?? Layer.empty,
    ChannelGateway.layer(options.channelGateway).pipe(Layer.provide([chat, channels])),
  )
  // Connects in background fibers: a slow or broken MCP server never holds up startup.
  const mcp = McpRegistry.layer(options.mcp).pipe(
    Layer.provideMerge(options.mcpOAuth === undefined ? McpOAuth.layerDisabled() : McpOAuth.layer(options.mcpOAuth)),
  )
  // `current_time` and `notify`: registered once the inbox they write to is up.
  const builtinTools = Layer.mergeAll(BuiltinTools.layer.pipe(Layer.provide(inbox)), options.tools ?? Layer.empty)
  // Runs prompts through chat and delivers to the inbox; neither of them knows the scheduler.
  const scheduler = Scheduler.layer(options.scheduler).pipe(Layer.provide([chat, inbox]))
  // Plugin processes start in background fibers, like MCP connections.
  const plugins = PluginLoader.layer({ hostEnv: options.plugins?.env ?? {}, ...options.pluginLoader }).pipe(
    Layer.provideMerge(PluginCatalog.layer(options.plugins)),
    Layer.provide([chat, gateway]),
  )
  return Layer.mergeAll(chat, activeStreams, inbox, gateway, mcp, builtinTools, scheduler, plugins).pipe(
    // Chat reads memory into the model's context and feeds it after each turn; the built-in
    // tools edit working memory; recall adds messages of other threads.
    Layer.provideMerge(Layer.merge(Memory.layer(options.memory), Recall.layer)),
    Layer.provideMerge(Layer.mergeAll(auth, AppConfig.layer, ToolRegistry.layer)),
  )
}

export interface KernelOptions extends ServicesOptions {
  /** Where the SQLite database and the generated signing secret live. */
  readonly dataDir: string
  /**
   * The connection of the SQL stores; default `SqliteStorage.layer` on `<dataDir>/aide.db`.
   * Migrated or not: the stores migrate what they need. Not opened when you replace every store.
   */
  readonly storage?: Layer.Layer<SqlClient.SqlClient, StorageError>
  /** Users, sessions and refresh tokens; default `SqlAuthStore.layer`. */
  readonly authStore?: Layer.Layer<AuthStore, StorageError>
  /** The config document; default `SqlConfigStore.layer`. */
  readonly configStore?: Layer.Layer<ConfigStore, StorageError>
  /** Threads and their messages; default `SqlThreads.layer`. */
  readonly threads?: Layer.Layer<Threads, StorageError>
  /** Suspended runs and their approvals; default `SqlChatRuns.layer`. */
  readonly chatRuns?: Layer.Layer<ChatRuns, StorageError>
  /** Inbox messages and delivery leases; default `SqlInboxStore.layer`. */
  readonly inboxStore?: Layer.Layer<InboxStore, StorageError>
  /** Channel conversations' threads and the approval ids handed to channels; default `SqlChannelConversations.layer`. */
  readonly channelConversations?: Layer.Layer<ChannelConversations, StorageError>
  /** MCP OAuth registrations, tokens and states; default `SqlMcpOAuthStore.layer`. */
  readonly mcpOAuthStore?: Layer.Layer<McpOAuthStore, StorageError>
  /** The scheduler's run ledger and per-task state; default `SqlRunLedger.layer`. */
  readonly runLedger?: Layer.Layer<RunLedger, StorageError>
  /** Working memory; default `SqlMemoryStore.layer`. */
  readonly memoryStore?: Layer.Layer<MemoryStore, StorageError>
  /** Observational memory (records, observations, reflections); default `SqlObservationStore.layer`. */
  readonly observationStore?: Layer.Layer<ObservationStore, StorageError>
  /**
   * Semantic recall's index over the stored messages; default `SqlRecallIndex.layer` (kept in sync
   * with `messages` by triggers), or `RecallIndex.layerEmpty` when `threads` is replaced.
   */
  readonly recallIndex?: Layer.Layer<RecallIndex.RecallIndex, StorageError>
  /** Access-token key (≥ 32 bytes); default: generated once into `<dataDir>/jwt-secret` (0600). */
  readonly signingSecret?: Redacted.Redacted<Uint8Array>
  /** Access tokens; default HS256 JWTs signed with `signingSecret` (`AccessTokens.layer`). */
  readonly accessTokens?: Layer.Layer<
    AccessTokens.AccessTokens,
    SigningSecret.SigningSecretError,
    AuthConfig.AuthConfig
  >
  /** Default: argon2id with OWASP parameters. */
  readonly passwordHasher?: Layer.Layer<PasswordHasher.PasswordHasher>
  /** Default: in-memory fixed windows. */
  readonly rateLimiter?: Layer.Layer<RateLimiter.RateLimiter>
  /** The host's environment, for provider API keys and MCP servers (the kernel never reads `process.env`); default `{}`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Default: `ModelRegistry.layer({ env })`, the provider catalogue configured from `env`. */
  readonly modelRegistry?: Layer.Layer<ModelRegistry.ModelRegistry>
  /** Live chat streams; default: in this process's memory, replayable 60 s after they finish. */
  readonly streamHub?: Layer.Layer<StreamHub.StreamHub>
  /** Thread titles; default: asked of the operator model (`TitleGenerator.layerModel`). */
  readonly titles?: Layer.Layer<TitleGenerator.TitleGenerator, never, AppConfig.AppConfig | ModelRegistry.ModelRegistry>
  /** Ids and random secrets; default `Ids.layer` (UUID v4, `crypto.randomBytes`). */
  readonly ids?: Layer.Layer<Ids.Ids>
}

/** Everything the default kernel provides: the services and every Tag they were given. */
export type KernelServices = Services | ServiceRequirements

export type KernelError = StorageError | SigningSecret.SigningSecretError

/**
 * The stores of `options`, the SQL ones (`SqlStores.layers`, the one list of stores) on one
 * connection. The connection is opened only when some store is SQL: an embedder replacing them
 * all never touches `dataDir/aide.db`.
 */
const storesLayer = (options: KernelOptions, ids: Layer.Layer<Ids.Ids>) => {
  const names = Object.keys(SqlStores.layers) as ReadonlyArray<keyof typeof SqlStores.layers>
  // The SQL index reads the `messages` table: threads kept elsewhere leave it nothing to find.
  const fallback = (name: keyof typeof SqlStores.layers) =>
    name === "recallIndex" && options.threads !== undefined ? RecallIndex.layerEmpty : SqlStores.layers[name]
  const chosen = names.map((name) => options[name] ?? fallback(name))
  // Each entry provides the Tag of its name (the option types say so); the array loses that.
  const stores = Layer.mergeAll(
    ...(chosen as unknown as [Layer.Layer<never, StorageError, SqlClient.SqlClient | Ids.Ids>]),
  ) as Layer.Layer<Stores, StorageError, SqlClient.SqlClient | Ids.Ids>
  const allGiven = names.every((name) => name === "recallIndex" || options[name] !== undefined)
  // None of them SQL: nothing asks for a connection, so none is opened.
  if (allGiven) return Layer.provideMerge(stores as Layer.Layer<Stores, StorageError, Ids.Ids>, ids)
  const storage = options.storage ?? SqliteStorage.layer({ filename: Path.join(options.dataDir, "aide.db") })
  return Layer.provideMerge(stores, Layer.merge(storage, ids))
}

/**
 * The default composition of the kernel: `services` over the SQL stores (SQLite in `dataDir`),
 * argon2id, in-memory rate limits and streams. Every Tag the services require has an option;
 * what you give is the one the services use.
 *
 * @example
 * const kernel = Kernel.layer({ dataDir: "./.aide", threads: myThreadsLayer })
 * const program = Effect.flatMap(Auth.Auth, (auth) => auth.isSetup)
 * Effect.runPromise(Effect.provide(program, kernel))
 */
export const layer = (options: KernelOptions): Layer.Layer<KernelServices, KernelError> => {
  const ids = options.ids ?? Ids.layer
  const authConfig = AuthConfig.layer(options.auth)
  const secret =
    options.signingSecret === undefined
      ? SigningSecret.loadOrCreate(Path.join(options.dataDir, "jwt-secret"))
      : Effect.succeed(options.signingSecret)
  const accessTokens = (
    options.accessTokens ?? Layer.unwrapEffect(Effect.map(secret, (key) => AccessTokens.layer({ secret: key })))
  ).pipe(Layer.provide(authConfig))
  const modelRegistry = options.modelRegistry ?? ModelRegistry.layer({ env: options.env ?? {} })
  const stores = storesLayer(options, ids)
  // Titles read the operator model from the config: the same `AppConfig.layer` the services
  // build (Layers are memoized by reference), so there is one config service.
  const titles = (options.titles ?? TitleGenerator.layerModel).pipe(Layer.provide(AppConfig.layer))
  const mechanisms = Layer.mergeAll(
    accessTokens,
    options.passwordHasher ?? PasswordHasher.layer,
    options.rateLimiter ?? RateLimiter.layerMemory,
    options.streamHub ?? StreamHub.layerMemory(),
    modelRegistry,
  )
  // SQLite in the data dir is this process's alone: a claim found at start is a crashed run's.
  const memory = { releaseClaimsAtStart: options.storage === undefined, ...options.memory }
  const plugins = { pluginsDir: Path.join(options.dataDir, "plugins"), env: options.env ?? {}, ...options.plugins }
  // Sandboxed plugins' modules are compiled once, when enabled, into the data dir (Precompile.ts).
  const pluginLoader = { modulesDir: Path.join(options.dataDir, "cache", "plugin-modules"), ...options.pluginLoader }
  return services({ ...options, memory, plugins, pluginLoader, mcp: { env: options.env ?? {}, ...options.mcp } }).pipe(
    Layer.provideMerge(titles),
    Layer.provideMerge(mechanisms),
    Layer.provideMerge(stores),
  )
}

/** The kernel with every store in memory, no file opened: see `KernelMemory.ts`. */
export { type KernelMemoryOptions, layerMemory } from "./KernelMemory.js"

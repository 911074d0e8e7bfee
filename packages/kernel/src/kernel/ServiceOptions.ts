import type { Layer } from "effect"
import type * as AccessTokens from "../auth/AccessTokens.js"
import type * as Auth from "../auth/Auth.js"
import type * as AuthConfig from "../auth/AuthConfig.js"
import type * as PasswordHasher from "../auth/PasswordHasher.js"
import type * as ChannelRegistry from "../channels/ChannelRegistry.js"
import type * as ChannelGateway from "../channels/gateway/ChannelGateway.js"
import type * as AgentStep from "../chat/AgentStep.js"
import type * as Chat from "../chat/Chat.js"
import type * as StreamHub from "../chat/StreamHub.js"
import type * as TitleGenerator from "../chat/TitleGenerator.js"
import type * as AppConfig from "../config/AppConfig.js"
import type * as Ids from "../ids/Ids.js"
import type * as DeliveringInbox from "../inbox/DeliveringInbox.js"
import type * as Inbox from "../inbox/Inbox.js"
import type * as McpOAuth from "../mcp/McpOAuth.js"
import type * as McpRegistry from "../mcp/McpRegistry.js"
import type * as Memory from "../memory/Memory.js"
import type * as Recall from "../memory/recall/Recall.js"
import type * as ModelRegistry from "../models/ModelRegistry.js"
import type * as PluginLoader from "../plugins/loader/PluginLoader.js"
import type * as PluginCatalog from "../plugins/PluginCatalog.js"
import type * as WebPush from "../push/WebPush.js"
import type * as RateLimiter from "../ratelimit/RateLimiter.js"
import type * as Scheduler from "../scheduler/Scheduler.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Stores } from "../stores/Stores.js"
import type * as ActiveStreams from "../threads/ActiveStreams.js"
import type * as ToolRegistry from "../tools/ToolRegistry.js"
import type * as Tools from "../tools/Tools.js"

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
  | WebPush.WebPush

/*
 * A replacement service may use the stores and mechanisms, the config document, and the services
 * below it in the graph (never one above: the graph has no cycles). Each alias names exactly what
 * the kernel gives that service's Layer.
 */

/** `Auth`: built first, beside the config document; `AuthConfig` is the `auth` settings' defaults. */
export type AuthLayer = Layer.Layer<Auth.Auth, StorageError, ServiceRequirements | AuthConfig.AuthConfig>
/** `AgentStep`: one agent step of a chat run, given what chat built (see the Tag's contract). */
export type AgentStepLayer = Layer.Layer<AgentStep.AgentStep, StorageError, ServiceRequirements | AppConfig.AppConfig>
/** `Memory` and `Recall` together: chat reads both before a turn and feeds both after it. */
export type MemoryLayer = Layer.Layer<
  Memory.Memory | Recall.Recall,
  StorageError,
  ServiceRequirements | AppConfig.AppConfig
>
/** `Inbox`: the channels registered by then are in `ChannelRegistry`. */
export type InboxLayer = Layer.Layer<
  Inbox.Inbox,
  StorageError,
  ServiceRequirements | AppConfig.AppConfig | ChannelRegistry.ChannelRegistry
>
/** `McpRegistry`: registers its tool sources in `ToolRegistry`. */
export type McpRegistryLayer = Layer.Layer<
  McpRegistry.McpRegistry,
  StorageError,
  ServiceRequirements | AppConfig.AppConfig | ToolRegistry.ToolRegistry | McpOAuth.McpOAuth
>
/** `Scheduler` (and whatever else the Layer provides, e.g. `ManualScheduler`): runs prompts through chat, delivers to the inbox. */
export type SchedulerLayer<Extra = never> = Layer.Layer<
  Scheduler.Scheduler | Extra,
  StorageError,
  ServiceRequirements | AppConfig.AppConfig | Chat.Chat | Inbox.Inbox | Memory.Memory | Recall.Recall
>
/** `PluginLoader`: plugins' tools go to `ToolRegistry`, their channels to `ChannelGateway`. */
export type PluginLoaderLayer = Layer.Layer<
  PluginLoader.PluginLoader,
  StorageError,
  | ServiceRequirements
  | AppConfig.AppConfig
  | PluginCatalog.PluginCatalog
  | ToolRegistry.ToolRegistry
  | Tools.Tools
  | ChannelGateway.ChannelGateway
  | Memory.Memory
  | Recall.Recall
>

/**
 * Settings of the services' logic, and the services you replace. Each option is either settings
 * (they configure the default service) or a Layer (it replaces the service whole: every other
 * service then uses yours), never both: `scheduler` are the default scheduler's settings,
 * `schedulerLayer` your `Scheduler`. Settings given beside a Layer configure nothing (except `auth`,
 * whose `AuthConfig` your `authLayer` reads).
 */
export interface ServicesOptions {
  /** Token lifetimes and password rules (default SPEC values); also your `authLayer`'s `AuthConfig`. */
  readonly auth?: Partial<AuthConfig.AuthSettings>
  /** Your `Auth` (e.g. `HostAuth.layer`), replacing password sign-in. */
  readonly authLayer?: AuthLayer
  /** Chat run settings (e.g. provider retries, answer bounds). */
  readonly chat?: Chat.ChatOptions
  /**
   * Your agent step (history, system prompt, tools → UI message stream: a Mastra or LangGraph
   * agent, a loop of your own); default `AiSdkAgentStep.layer` (the AI SDK's `streamText`).
   */
  readonly agentStep?: AgentStepLayer
  /** Channels to register (e.g. `ChannelRegistry.channel(telegram)`); default none. */
  readonly channels?: Layer.Layer<never, never, ChannelRegistry.ChannelRegistry>
  /** Channel plugins' endpoints to register (e.g. `ChannelGateway.endpoint(telegram)`); the loader registers its own. */
  readonly channelEndpoints?: Layer.Layer<never, never, ChannelGateway.ChannelGateway>
  /** Realtime backoff, per-conversation queue and webhook limits of the channel gateway. */
  readonly channelGateway?: ChannelGateway.ChannelGatewayOptions
  /** Your own tools (e.g. `ToolRegistry.source({ id: "crm", kind: "plugin", tools })`); default none. */
  readonly tools?: Layer.Layer<never, never, ToolRegistry.ToolRegistry>
  /** Retry policy of channel deliveries (default `DeliveringInbox.defaults`: 4 attempts, 1 s × 5 backoff). */
  readonly inbox?: DeliveringInbox.DeliveryOptions
  /** Your `Inbox`, replacing the delivering one (new web-inbox messages are still pushed to browsers). */
  readonly inboxLayer?: InboxLayer
  /** Web Push settings (VAPID contact, subscription cap, retries; `allowHttpLoopback` for tests). */
  readonly push?: WebPush.WebPushOptions
  /** MCP connection timeouts and the environment stdio servers may name (default `{}`). */
  readonly mcp?: McpRegistry.McpRegistryOptions
  /** Your `McpRegistry` (e.g. a fixed, vetted toolset); default `McpRegistry.layer(mcp)`. */
  readonly mcpRegistry?: McpRegistryLayer
  /**
   * OAuth for remote MCP servers: `redirectUrl` is the host's callback route, complete. Without
   * it, servers with `oauth: true` report `McpOAuth.defaultDisabledMessage`.
   */
  readonly mcpOAuth?: McpOAuth.McpOAuthOptions
  /** Scheduled tasks and heartbeat (`{ enabled: false }` keeps the firing loop off, tasks stay editable). */
  readonly scheduler?: Scheduler.SchedulerOptions
  /**
   * Your `Scheduler` (e.g. `ManualScheduler.layer()`): whatever else the Layer provides (the
   * `ManualScheduler` Tag) the kernel provides too, and its type says so.
   */
  readonly schedulerLayer?: SchedulerLayer
  /** Observational memory's claim lease and circuit breaker. */
  readonly memory?: Memory.ObservationalOptions
  /** Your `Memory` and `Recall` (e.g. `NoMemory.layer`). */
  readonly memoryLayer?: MemoryLayer
  /** Where plugins are found and the environment their declared variables are checked in. */
  readonly plugins?: PluginCatalog.PluginCatalogOptions
  /** How plugin processes run (limits, egress policy of their `fetch`). */
  readonly pluginLoader?: PluginLoader.PluginLoaderOptions
  /** Your plugin loader (e.g. `NoPlugins.layer`). */
  readonly pluginLoaderLayer?: PluginLoaderLayer
}

/** Options with your `Scheduler` Layer, whose other services (`Extra`) the kernel then provides too. */
export type WithScheduler<O, Extra> = O & { readonly schedulerLayer: SchedulerLayer<Extra> }

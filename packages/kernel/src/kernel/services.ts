import { Effect, Layer } from "effect"
import * as Auth from "../auth/Auth.js"
import * as AuthConfig from "../auth/AuthConfig.js"
import * as ChannelRegistry from "../channels/ChannelRegistry.js"
import * as ChannelGateway from "../channels/gateway/ChannelGateway.js"
import * as AiSdkAgentStep from "../chat/AiSdkAgentStep.js"
import * as Chat from "../chat/Chat.js"
import * as StreamHub from "../chat/StreamHub.js"
import * as AppConfig from "../config/AppConfig.js"
import * as DeliveringInbox from "../inbox/DeliveringInbox.js"
import * as McpOAuth from "../mcp/McpOAuth.js"
import * as McpRegistry from "../mcp/McpRegistry.js"
import * as Memory from "../memory/Memory.js"
import * as Recall from "../memory/recall/Recall.js"
import * as PluginLoader from "../plugins/loader/PluginLoader.js"
import * as PluginCatalog from "../plugins/PluginCatalog.js"
import * as Scheduler from "../scheduler/Scheduler.js"
import type { StorageError } from "../storage/StorageError.js"
import * as ActiveStreams from "../threads/ActiveStreams.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import * as Tools from "../tools/Tools.js"
import * as BuiltinTools from "./BuiltinTools.js"
import type { SchedulerLayer, ServiceRequirements, Services, ServicesOptions } from "./ServiceOptions.js"

/** A Layer given for an option that also takes settings: it replaces the default service whole. */
const given = <L = Layer.Layer<never, unknown, unknown>>(option: unknown): option is L => Layer.isLayer(option)

/**
 * All of the kernel's logic, and nothing it keeps data in or talks to: it requires only Tags
 * (`ServiceRequirements`), the way `@effect/cluster`'s `Sharding.layer` leaves `MessageStorage`
 * to you. Provide them from the SQL stores and the defaults (that is `Kernel.layer`), or from
 * your own Layers. Each service is a Layer of its own, and each of auth, memory (with recall),
 * the inbox, the MCP registry, the scheduler and the plugin loader can be given whole in
 * `options`: every other service then uses the one given.
 */
export const services = <SchedulerExtra = never>(
  options: ServicesOptions<SchedulerExtra> = {},
): Layer.Layer<Services | SchedulerExtra, StorageError, ServiceRequirements> => {
  const authConfig = AuthConfig.layer(given(options.auth) ? {} : options.auth)
  const auth = (given(options.auth) ? options.auth : Auth.layer).pipe(Layer.provide(authConfig))
  // The agent step (history, prompt, tools → UI message stream) is chat's alone: yours or `streamText`.
  const chat = Chat.layer(options.chat).pipe(
    Layer.provideMerge(Tools.layer),
    Layer.provide(options.agentStep ?? AiSdkAgentStep.layer),
  )
  // GET /api/threads reports the hub's running streams.
  const activeStreams = Layer.effect(
    ActiveStreams.ActiveStreams,
    Effect.map(StreamHub.StreamHub, (hub) => ({ threadIds: hub.activeThreadIds })),
  )
  // Channels register before the inbox starts, so its first sweep already finds them.
  const channels = Layer.provideMerge(options.channels ?? Layer.empty, ChannelRegistry.layer)
  const inboxService = given(options.inbox) ? options.inbox : DeliveringInbox.layer(options.inbox)
  const inbox = inboxService.pipe(Layer.provideMerge(channels))
  // Channel plugins talk to chat and register their notifiers in the inbox's registry.
  const gateway = Layer.provideMerge(
    options.channelEndpoints ?? Layer.empty,
    ChannelGateway.layer(options.channelGateway).pipe(Layer.provide([chat, channels])),
  )
  // Connects in background fibers: a slow or broken MCP server never holds up startup.
  const mcp = (options.mcpRegistry ?? McpRegistry.layer(options.mcp)).pipe(
    Layer.provideMerge(options.mcpOAuth === undefined ? McpOAuth.layerDisabled() : McpOAuth.layer(options.mcpOAuth)),
  )
  // `current_time` and `notify`: registered once the inbox they write to is up.
  const builtinTools = Layer.mergeAll(BuiltinTools.layer.pipe(Layer.provide(inbox)), options.tools ?? Layer.empty)
  // Runs prompts through chat and delivers to the inbox; neither of them knows the scheduler.
  const schedulerService: SchedulerLayer<SchedulerExtra> = given<SchedulerLayer<SchedulerExtra>>(options.scheduler)
    ? options.scheduler
    : // Without a Layer given, nothing infers `SchedulerExtra`: it is `never`.
      (Scheduler.layer(options.scheduler) as unknown as SchedulerLayer<SchedulerExtra>)
  const scheduler = schedulerService.pipe(Layer.provide([chat, inbox]))
  // Plugin processes start in background fibers, like MCP connections.
  const loader = given(options.pluginLoader)
    ? options.pluginLoader
    : PluginLoader.layer({ hostEnv: options.plugins?.env ?? {}, ...options.pluginLoader })
  const plugins = loader.pipe(Layer.provideMerge(PluginCatalog.layer(options.plugins)), Layer.provide([chat, gateway]))
  // Chat reads memory into the model's context and feeds it after each turn; the built-in
  // tools edit working memory; recall adds messages of other threads.
  const memory = given(options.memory) ? options.memory : Layer.merge(Memory.layer(options.memory), Recall.layer)
  return Layer.mergeAll(chat, activeStreams, inbox, gateway, mcp, builtinTools, scheduler, plugins).pipe(
    Layer.provideMerge(memory),
    Layer.provideMerge(Layer.mergeAll(auth, AppConfig.layer, ToolRegistry.layer)),
  )
}

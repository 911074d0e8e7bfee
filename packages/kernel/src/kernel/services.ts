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
import * as PairingInbox from "../inbox/PairingInbox.js"
import * as McpOAuth from "../mcp/McpOAuth.js"
import * as McpRegistry from "../mcp/McpRegistry.js"
import * as Memory from "../memory/Memory.js"
import * as Recall from "../memory/recall/Recall.js"
import * as PluginLoader from "../plugins/loader/PluginLoader.js"
import * as PluginCatalog from "../plugins/PluginCatalog.js"
import * as PushHooks from "../push/PushHooks.js"
import * as WebPush from "../push/WebPush.js"
import * as Scheduler from "../scheduler/Scheduler.js"
import type { StorageError } from "../storage/StorageError.js"
import * as ActiveStreams from "../threads/ActiveStreams.js"
import * as ToolRegistry from "../tools/ToolRegistry.js"
import * as Tools from "../tools/Tools.js"
import * as BuiltinTools from "./BuiltinTools.js"
import type { ServiceRequirements, Services, ServicesOptions, WithScheduler } from "./ServiceOptions.js"

/**
 * All of the kernel's logic, and nothing it keeps data in or talks to: it requires only Tags
 * (`ServiceRequirements`), the way `@effect/cluster`'s `Sharding.layer` leaves `MessageStorage`
 * to you. Provide them from the SQL stores and the defaults (that is `Kernel.layer`), or from
 * your own Layers. Each service is a Layer of its own, and each of auth, memory (with recall),
 * the inbox, the MCP registry, the scheduler and the plugin loader can be given whole in
 * `options` (`authLayer`, `memoryLayer`, `inboxLayer`, `mcpRegistry`, `schedulerLayer`,
 * `pluginLoaderLayer`): every other service then uses the one given.
 */
export function services<Extra>(
  options: WithScheduler<ServicesOptions, Extra>,
): Layer.Layer<Services | Extra, StorageError, ServiceRequirements>
export function services(options?: ServicesOptions): Layer.Layer<Services, StorageError, ServiceRequirements>
export function services(options: ServicesOptions = {}): Layer.Layer<Services, StorageError, ServiceRequirements> {
  const authConfig = AuthConfig.layer(options.auth)
  const auth = (options.authLayer ?? Auth.layer).pipe(Layer.provide(authConfig))
  // The agent step (history, prompt, tools → UI message stream) is chat's alone: yours or `streamText`.
  // Channels register before the inbox starts, so its first sweep already finds them; Web Push
  // registers "Browser notifications" among them.
  const channels = Layer.provideMerge(options.channels ?? Layer.empty, ChannelRegistry.layer)
  const push = WebPush.layer(options.push).pipe(Layer.provideMerge(channels))
  // Chat's approvals store pushes "approval waiting" to the owner's browsers.
  const chat = Chat.layer(options.chat).pipe(
    Layer.provideMerge(Tools.layer),
    Layer.provide(options.agentStep ?? AiSdkAgentStep.layer),
    Layer.provide(PushHooks.chatRuns.pipe(Layer.provide(push))),
  )
  // GET /api/threads reports the hub's running streams.
  const activeStreams = Layer.effect(
    ActiveStreams.ActiveStreams,
    Effect.map(StreamHub.StreamHub, (hub) => ({ threadIds: hub.activeThreadIds })),
  )
  // New web-inbox messages are pushed to the owner's browsers too.
  const inboxService = options.inboxLayer ?? DeliveringInbox.layer(options.inbox)
  const inbox = PushHooks.inbox.pipe(Layer.provide(inboxService), Layer.provideMerge(push))
  // Channel plugins talk to chat and register their notifiers in the inbox's registry; pairing
  // requests of unknown senders are told to the owner in the inbox.
  const gateway = Layer.provideMerge(
    options.channelEndpoints ?? Layer.empty,
    ChannelGateway.layer(options.channelGateway).pipe(
      Layer.provide([chat, channels, PairingInbox.layer.pipe(Layer.provide(inbox))]),
    ),
  )
  // Connects in background fibers: a slow or broken MCP server never holds up startup.
  const mcp = (options.mcpRegistry ?? McpRegistry.layer(options.mcp)).pipe(
    Layer.provideMerge(options.mcpOAuth === undefined ? McpOAuth.layerDisabled() : McpOAuth.layer(options.mcpOAuth)),
  )
  // `current_time` and `notify`: registered once the inbox they write to is up.
  const builtinTools = Layer.mergeAll(BuiltinTools.layer.pipe(Layer.provide(inbox)), options.tools ?? Layer.empty)
  // Runs prompts through chat and delivers to the inbox; neither of them knows the scheduler.
  // A given Layer's extra services (e.g. `ManualScheduler`) are merged in with it: the first
  // overload's type says so.
  const scheduler = (options.schedulerLayer ?? Scheduler.layer(options.scheduler)).pipe(Layer.provide([chat, inbox]))
  // Plugin processes start in background fibers, like MCP connections.
  const loader =
    options.pluginLoaderLayer ?? PluginLoader.layer({ hostEnv: options.plugins?.env ?? {}, ...options.pluginLoader })
  const plugins = loader.pipe(Layer.provideMerge(PluginCatalog.layer(options.plugins)), Layer.provide([chat, gateway]))
  // Chat reads memory into the model's context and feeds it after each turn; the built-in
  // tools edit working memory; recall adds messages of other threads.
  const memory = options.memoryLayer ?? Layer.merge(Memory.layer(options.memory), Recall.layer)
  return Layer.mergeAll(chat, activeStreams, inbox, gateway, mcp, builtinTools, scheduler, plugins).pipe(
    Layer.provideMerge(memory),
    Layer.provideMerge(Layer.mergeAll(auth, AppConfig.layer, ToolRegistry.layer)),
  )
}

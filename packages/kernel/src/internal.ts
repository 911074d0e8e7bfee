/**
 * @aide/kernel/internal — modules Aide's own packages (server, cli, testing) build on: the
 * HTTP-facing helpers, the data-dir lock, the plugin sandbox's parts. Not a public API: anything here
 * may change in any release. Embedders and plugin authors use `@aide/kernel`.
 * One line per module, sorted by path, so additions merge.
 */
export * as ChannelEndpoint from "./channels/gateway/ChannelEndpoint.js"
export * as ChannelWebhooks from "./channels/gateway/Webhooks.js"
export * as MergePatch from "./config/MergePatch.js"
export * as McpServerInput from "./mcp/McpServerInput.js"
export * as UrlRedaction from "./net/UrlRedaction.js"
export * as PluginPrecompile from "./plugins/loader/Precompile.js"
export * as PluginView from "./plugins/PluginView.js"
export * as PluginProcess from "./plugins/sandbox/PluginProcess.js"
export * as DataDirLock from "./storage/DataDirLock.js"
export * as Problems from "./validation/Problems.js"

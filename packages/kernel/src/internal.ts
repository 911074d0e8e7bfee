/**
 * @aide/kernel/internal — modules Aide's own packages (server, cli, testing) build on: the
 * HTTP-facing helpers, migrations, the plugin sandbox's parts. Not a public API: anything here
 * may change in any release. Embedders and plugin authors use `@aide/kernel`.
 * One line per module, sorted by path, so additions merge.
 */
export * as ChannelEndpoint from "./channels/gateway/ChannelEndpoint.js"
export * as ChannelWebhooks from "./channels/gateway/Webhooks.js"
export * as WebhookVerifier from "./channels/gateway/WebhookVerifier.js"
export * as MergePatch from "./config/MergePatch.js"
export * as McpConnection from "./mcp/McpConnection.js"
export * as McpServerInput from "./mcp/McpServerInput.js"
export * as UrlGuard from "./mcp/UrlGuard.js"
export * as MemoryTokens from "./memory/observational/Tokens.js"
export * as ServedModels from "./models/ServedModels.js"
export * as UrlRedaction from "./net/UrlRedaction.js"
export * as PluginPrecompile from "./plugins/loader/Precompile.js"
export * as PluginDiscovery from "./plugins/PluginDiscovery.js"
export * as PluginView from "./plugins/PluginView.js"
export * as PluginProcess from "./plugins/sandbox/PluginProcess.js"
export * as DataDirLock from "./storage/DataDirLock.js"
export * as SqlMigrations from "./storage/SqlMigrations.js"
export * as Cron from "./time/Cron.js"
export * as Problems from "./validation/Problems.js"

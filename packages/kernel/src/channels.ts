/**
 * @aide/kernel/channels — messaging channels: the channel contract and registry, the gateway, channel conversations and webhook replays (stores and Layers).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as Channel from "./channels/Channel.js"
export * as ChannelRegistry from "./channels/ChannelRegistry.js"
export * as ChannelContract from "./channels/gateway/ChannelContract.js"
export * as ChannelConversations from "./channels/gateway/ChannelConversations.js"
export * as ChannelGateway from "./channels/gateway/ChannelGateway.js"
export * as PairingNotifier from "./channels/gateway/PairingNotifier.js"
export * as SqlChannelConversations from "./channels/gateway/SqlChannelConversations.js"
export * as SqlWebhookReplays from "./channels/gateway/SqlWebhookReplays.js"
export * as WebhookReplays from "./channels/gateway/WebhookReplays.js"

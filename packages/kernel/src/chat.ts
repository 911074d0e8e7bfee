/**
 * @aide/kernel/chat — chat runs: the Chat service, the agent step (AgentStep, its AI SDK Layer), its model and errors, suspended runs (ChatRuns and its Layers), live streams (StreamHub) and thread titles.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as AgentStep from "./chat/AgentStep.js"
export * as AiSdkAgentStep from "./chat/AiSdkAgentStep.js"
export * as Chat from "./chat/Chat.js"
export * as ChatErrors from "./chat/ChatErrors.js"
export * as ChatModel from "./chat/ChatModel.js"
export * as ChatRuns from "./chat/ChatRuns.js"
export * as MemoryChatRuns from "./chat/MemoryChatRuns.js"
export * as SqlChatRuns from "./chat/SqlChatRuns.js"
export * as StreamHub from "./chat/StreamHub.js"
export * as TitleGenerator from "./chat/TitleGenerator.js"

/**
 * @aide/testing — test helpers for Aide and its plugins. `FakeModelServer` is a scripted,
 * OpenAI-compatible model server on loopback, so tests drive the real AI SDK provider over HTTP.
 */
export { embeddingDimensions, fakeEmbedding } from "./embeddings.js"
export { type EmbeddingsRequest, FakeModelServer, type FakeModelServerOptions } from "./FakeModelServer.js"
export { collectSse, parseSse, type SseEvent } from "./sse.js"
export {
  type ChatCompletionRequest,
  type ChatMessage,
  type ChatTool,
  defaultText,
  defaultTurn,
  type RecordedRequest,
  splitWords,
  type ToolCall,
  type Turn,
  type TurnError,
  textChunks,
  textOf,
} from "./Turn.js"

/**
 * @aide/client — a typed promise client for Aide's HTTP API, for Node ≥ 20, browsers and edge
 * runtimes (only `fetch` and web streams). Types come from the server's own OpenAPI document.
 *
 * @example
 * const client = createAideClient({ baseUrl: "http://127.0.0.1:4111" })
 * await client.auth.login(password)
 * const { chunks } = await client.chat.send({ text: "Hello" })
 * for await (const chunk of chunks) if (chunk.type === "text-delta") process.stdout.write(chunk.delta)
 */

export type { ChatStream } from "./chatStream.js"
export { aideChatTransport } from "./chatTransport.js"
export {
  type AideClient,
  type AideClientOptions,
  type ApproveInput,
  createAideClient,
  type SendInput,
} from "./client.js"
export { AideError } from "./errors.js"
export type { Fetch } from "./http.js"
export { localStorageTokenStore, memoryTokenStore, type TokenStore } from "./tokens.js"
export type * from "./types.js"

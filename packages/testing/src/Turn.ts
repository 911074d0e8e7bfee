import type { IncomingHttpHeaders } from "node:http"

/** A message as the client sent it in `messages` (OpenAI chat format, loosely typed). */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant" | "tool" | (string & {})
  readonly content?: unknown
  readonly tool_calls?: ReadonlyArray<{
    readonly id: string
    readonly type: "function"
    readonly function: { readonly name: string; readonly arguments: string }
  }>
  readonly tool_call_id?: string
  readonly [key: string]: unknown
}

/** A tool definition as the client sent it in `tools`. */
export interface ChatTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description?: string
    readonly parameters?: unknown
    readonly strict?: boolean
  }
}

/** The JSON body of a `POST /v1/chat/completions` request. Fields the client left out are absent. */
export interface ChatCompletionRequest {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly stream?: boolean
  readonly stream_options?: { readonly include_usage?: boolean }
  readonly temperature?: number
  readonly max_tokens?: number
  readonly top_p?: number
  readonly stop?: ReadonlyArray<string>
  readonly seed?: number
  readonly tools?: ReadonlyArray<ChatTool>
  readonly tool_choice?: unknown
  readonly [key: string]: unknown
}

/** A request the server received, kept in `server.requests` in arrival order. */
export interface RecordedRequest {
  readonly method: string
  /** Path and query, e.g. `/v1/chat/completions`. */
  readonly path: string
  /** Node's header map: names are lower-case. */
  readonly headers: IncomingHttpHeaders
  readonly body: ChatCompletionRequest
}

/** A tool call the fake model makes. `arguments` as a string is sent verbatim (even if it is not JSON). */
export interface ToolCall {
  /** Defaults to `call_<n>`, unique per server. */
  readonly id?: string
  readonly name: string
  readonly arguments: object | string
}

/** An HTTP error answered before any streaming, with an OpenAI error body. */
export interface TurnError {
  readonly status: number
  readonly message: string
  /** Defaults to `invalid_request_error` below 500 and `server_error` from 500 on. */
  readonly type?: string
  readonly code?: string
  /** Extra response headers, e.g. `{ "retry-after-ms": "0" }` to make the AI SDK retry at once. */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * One scripted response of the fake model. A turn answers exactly one request.
 *
 * @example
 * server.script({ text: ["Hel", "lo"] }, { toolCalls: [{ name: "weather", arguments: { city: "Paris" } }] })
 */
export interface Turn {
  /** A string is streamed word by word; an array is streamed as exactly those chunks. */
  readonly text?: string | ReadonlyArray<string>
  /** Sent as `reasoning_content` before the text, word by word. */
  readonly reasoning?: string
  readonly toolCalls?: ReadonlyArray<ToolCall>
  /** Defaults to `tool_calls` when the turn has tool calls, `stop` otherwise. */
  readonly finishReason?: "stop" | "length" | "tool_calls" | "content_filter"
  /** Defaults to rough estimates (about four characters a token). */
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number }
  readonly error?: TurnError
  /**
   * Break the stream: close the socket after this many SSE events (`[DONE]` counts as one), so the
   * chunked body never ends.
   * For a non-streaming request the socket is destroyed before any response.
   */
  readonly failAfterChunks?: number
  /**
   * Stall: after this many SSE events, send nothing more and keep the connection open until the
   * client goes away (a model that hangs mid-stream).
   */
  readonly stallAfterChunks?: number
  /**
   * Stream the turn's text chunks over and over, never finishing, until the client goes away
   * (a model that streams for ever). `chunkDelayMs` paces it.
   */
  readonly endless?: boolean
  /** Wait before the first byte (status line and headers included). */
  readonly latencyMs?: number
  /** Wait between SSE events. */
  readonly chunkDelayMs?: number
  /**
   * Only a request for which this returns true consumes the turn, and such a request takes it
   * before any turn without `match` (e.g. a title-generation call next to the chat calls).
   */
  readonly match?: (request: RecordedRequest) => boolean
}

/** What the fake model answers when no scripted turn is left (or none matches). */
export const defaultText = "Hello from the fake model."

/** The default turn: {@link defaultText}. */
export const defaultTurn: Turn = { text: defaultText }

/** The text chunks of a turn, as they are streamed. */
export const textChunks = (turn: Turn): ReadonlyArray<string> =>
  typeof turn.text === "string" ? splitWords(turn.text) : (turn.text ?? [])

/**
 * The whole text a turn answers, i.e. what the SDK's `text` should be.
 *
 * @example
 * expect(result.text).toBe(textOf(turn))
 */
export const textOf = (turn: Turn): string => textChunks(turn).join("")

/** Splits after each run of whitespace, keeping it: "a b" → ["a ", "b"]. */
export const splitWords = (text: string): ReadonlyArray<string> => text.match(/\s*\S+\s*|\s+/g) ?? []

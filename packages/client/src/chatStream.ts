import type { UIMessageChunk } from "ai"
import { AideError } from "./errors.js"
import type { Http } from "./http.js"
import { readSse } from "./sse.js"

/** What `chat.send`, `chat.approve` and `chat.resume` return. */
export interface ChatStream {
  readonly threadId: string
  /** The run streaming (`X-Run-Id`): the `runId` of `chat.approve` for its tool calls. */
  readonly runId: string
  /** The AI SDK UI message chunks, resumed transparently (`Last-Event-ID`) if the connection drops. */
  readonly chunks: AsyncIterable<UIMessageChunk>
}

/** Reconnect attempts after a dropped connection before giving up. */
const maxReconnects = 5

/**
 * The chunks of `first` (an SSE answer), then of `GET /api/chat/:threadId/stream` with the last
 * event id seen each time the connection drops before `[DONE]`: no gap, no duplicate.
 */
export async function* resumableChunks(
  http: Http,
  threadId: string,
  first: Response,
  signal?: AbortSignal,
): AsyncGenerator<UIMessageChunk> {
  let response: Response | undefined = first
  let lastEventId: string | undefined
  let attempts = 0
  while (response !== undefined) {
    try {
      if (response.body === null) return
      for await (const event of readSse(response.body)) {
        if (event.id !== undefined) lastEventId = event.id
        if (event.data === "[DONE]") return
        attempts = 0
        yield JSON.parse(event.data) as UIMessageChunk
      }
      // The body ended without `[DONE]`: the connection was cut.
    } catch (error) {
      if (signal?.aborted || error instanceof SyntaxError) throw error
    }
    if (signal?.aborted) return
    if (++attempts > maxReconnects) throw new AideError(0, "stream_lost", "the chat stream dropped and did not resume")
    response = await reconnect(http, threadId, lastEventId, signal)
  }
}

/** `GET /api/chat/:threadId/stream`: the stream after `lastEventId` (from the start without), or undefined on 204. */
export const reconnect = async (
  http: Http,
  threadId: string,
  lastEventId: string | undefined,
  signal?: AbortSignal,
): Promise<Response | undefined> => {
  const response = await http.send(`/api/chat/${encodeURIComponent(threadId)}/stream`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
    signal,
  })
  if (response.status === 204) return undefined
  if (!response.ok) throw await AideError.fromResponse(response)
  return response
}

/** Turns an SSE answer into a `ChatStream`, or its error answer into an `AideError`. */
export const chatStream = async (
  http: Http,
  response: Response,
  fallbackThreadId: string | undefined,
  signal?: AbortSignal,
): Promise<ChatStream> => {
  if (!response.ok) throw await AideError.fromResponse(response)
  const threadId = response.headers.get("x-thread-id") ?? fallbackThreadId ?? ""
  return {
    threadId,
    runId: response.headers.get("x-run-id") ?? "",
    chunks: resumableChunks(http, threadId, response, signal),
  }
}

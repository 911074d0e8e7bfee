import { TitleGenerator } from "@aide/kernel"
import { FakeModelServer, parseSse, type SseEvent } from "@aide/testing"
import {
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai"
import { password, request, type StartOptions, setup, startServer, type TestServer } from "./server.js"

const setupOrLogin = async (server: TestServer): Promise<{ readonly token: string }> => {
  const login = await request(`${server.url}/api/auth/login`, { body: { password } })
  if (login.status === 200) return login.body
  return setup(server)
}

export interface ChatTestServer extends TestServer {
  readonly model: FakeModelServer
  readonly token: string
}

/**
 * A real server whose operator model is the fake OpenAI-compatible server, reached through the
 * real provider package over HTTP. Titles fall back to the first words unless `modelTitles`.
 */
export const startChatServer = async (
  options: StartOptions & { readonly modelTitles?: boolean } = {},
): Promise<ChatTestServer> => {
  const model = await FakeModelServer.start()
  const { modelTitles = false, ...rest } = options
  const server = await startServer({
    ...rest,
    env: { ...rest.env, OPENAI_COMPATIBLE_BASE_URL: model.url },
    kernel: {
      chat: { maxRetries: 0 },
      ...(modelTitles ? {} : { titles: TitleGenerator.layerFallback }),
      ...rest.kernel,
    },
  })
  // A server restarted on an existing data directory is set up already: log in instead.
  const { token } = options.dataDir === undefined ? await setup(server) : await setupOrLogin(server)
  const patched = await request(`${server.url}/api/config`, {
    method: "PATCH",
    token,
    body: { models: { operator: { provider: "openai-compatible", model: "fake-model" } } },
  })
  if (patched.status !== 200) throw new Error(`config patch failed: ${JSON.stringify(patched.body)}`)
  return {
    ...server,
    model,
    token,
    close: async () => {
      await server.close()
      await model.close()
    },
  }
}

export { parseSse, type SseEvent } from "@aide/testing"

/** The JSON chunks of an SSE body, without the `[DONE]` terminator. */
export const chunksOf = (text: string): Array<any> =>
  parseSse(text)
    .filter((event) => event.data !== "[DONE]")
    .map((event) => JSON.parse(event.data))

/** POST /api/chat with one text part. */
export const chat = (server: ChatTestServer, text: string, threadId?: string) =>
  fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
    body: JSON.stringify({ parts: [{ type: "text", text }], ...(threadId === undefined ? {} : { threadId }) }),
  })

/** POST /api/chat with any body (a JSON value, or a raw string sent as is). */
export const postChat = (
  server: ChatTestServer,
  body: unknown,
  init: { readonly token?: string | null; readonly signal?: AbortSignal } = {},
) => {
  const token = init.token === undefined ? server.token : init.token
  return fetch(`${server.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  })
}

/** GET /api/chat/:threadId/stream, with `Last-Event-ID` when given. */
export const resume = (server: ChatTestServer, threadId: string, lastEventId?: string | number) =>
  fetch(`${server.url}/api/chat/${encodeURIComponent(threadId)}/stream`, {
    headers: {
      authorization: `Bearer ${server.token}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }),
    },
  })

/** POST /api/chat/:threadId/stop */
export const stop = (server: ChatTestServer, threadId: string) =>
  request(`${server.url}/api/chat/${encodeURIComponent(threadId)}/stop`, { method: "POST", token: server.token })

/** GET /api/threads/:id */
export const threadDetail = (server: ChatTestServer, threadId: string) =>
  request(`${server.url}/api/threads/${encodeURIComponent(threadId)}`, { token: server.token })

/** `activeStreamIds` of GET /api/threads. */
export const activeStreamIds = async (server: ChatTestServer): Promise<ReadonlyArray<string>> =>
  (await request(`${server.url}/api/threads?perPage=false`, { token: server.token })).body.activeStreamIds

/** The concatenated text of the `text` parts of a UI message (stored or streamed). */
export const textOfParts = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>) =>
  parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("")

/** The concatenated `text-delta`s of a list of chunks. */
export const textOfChunks = (chunks: ReadonlyArray<any>) =>
  chunks
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("")

/** Polls `check` until it returns a value other than `undefined` (or throws after `timeoutMs`). */
export const eventually = async <A>(
  check: () => Promise<A | undefined> | A | undefined,
  { timeoutMs = 5_000, intervalMs = 10 }: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/**
 * Reads an SSE response incrementally: `until` waits for an event, `rest` reads to the end.
 * Every event read so far is kept in `events`, in order.
 */
export const sseReader = (response: Response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const events: Array<SseEvent> = []
  let buffer = ""
  let ended = false
  const pull = async () => {
    const next = await reader.read()
    if (next.done) {
      ended = true
      buffer += decoder.decode()
    } else buffer += decoder.decode(next.value, { stream: true })
    const end = buffer.lastIndexOf("\n\n")
    if (end === -1) return
    events.push(...parseSse(buffer.slice(0, end + 2)))
    buffer = buffer.slice(end + 2)
  }
  return {
    events,
    /** Reads until an event satisfies `predicate`; returns it. Fails if the stream ends first. */
    until: async (predicate: (event: SseEvent) => boolean): Promise<SseEvent> => {
      while (true) {
        const found = events.find(predicate)
        if (found !== undefined) return found
        if (ended) throw new Error("the stream ended before the expected event")
        await pull()
      }
    },
    /** Reads to the end of the stream; returns every event. */
    rest: async (): Promise<Array<SseEvent>> => {
      while (!ended) await pull()
      return events
    },
    cancel: () => reader.cancel(),
  }
}

/** Matches an event whose JSON chunk has this `type`. */
export const isChunk = (type: string) => (event: SseEvent) =>
  event.data !== "[DONE]" && JSON.parse(event.data).type === type

/**
 * Reads a chat response the way an AI SDK client does (`DefaultChatTransport` + `useChat`):
 * the SDK's own SSE parser and chunk schema, then `readUIMessageStream`. Returns the last
 * snapshot of the assistant message; throws if the SDK rejects a chunk.
 */
export const readWithAiSdk = async (response: Response, message?: UIMessage): Promise<UIMessage | undefined> => {
  const chunks = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk; error?: unknown }, UIMessageChunk>({
      transform(result, controller) {
        if (!result.success) throw result.error
        controller.enqueue(result.value!)
      },
    }),
  )
  // `message`: the assistant message the stream continues (after a tool approval), as `useChat` holds it.
  let last: UIMessage | undefined
  for await (const snapshot of readUIMessageStream({
    stream: chunks,
    terminateOnError: true,
    ...(message === undefined ? {} : { message }),
  }))
    last = snapshot
  return last
}

/** Enables the signed-webhook plugin with `secret` and waits until its channel is loaded. */
export const enableWebhookChannel = async (server: ChatTestServer, secret: string) => {
  const patched = await request(`${server.url}/api/config`, {
    method: "PATCH",
    token: server.token,
    body: { plugins: { webhook: { enabled: true, secret } } },
  })
  if (patched.status !== 200) throw new Error(`enabling the webhook plugin answered ${patched.status}`)
  await eventually(
    async () => {
      const listed = await request(`${server.url}/api/plugins`, { token: server.token })
      const webhook = (listed.body.plugins as Array<any>).find((entry) => entry.id === "webhook")
      return webhook?.provides.channels.loaded ? true : undefined
    },
    { timeoutMs: 15_000 },
  )
}

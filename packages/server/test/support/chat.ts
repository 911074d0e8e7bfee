import { TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { request, type StartOptions, setup, startServer, type TestServer } from "./server.js"

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
    env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
    kernel: {
      chat: { maxRetries: 0 },
      ...(modelTitles ? {} : { titles: TitleGenerator.layerFallback }),
      ...rest.kernel,
    },
  })
  const { token } = await setup(server)
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

export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/** Parses an SSE body into events (comments dropped). */
export const parseSse = (text: string): Array<SseEvent> =>
  text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .flatMap((block) => {
      let id: string | undefined
      const data: Array<string> = []
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4)
        else if (line.startsWith("data: ")) data.push(line.slice(6))
      }
      return data.length === 0 ? [] : [{ id, data: data.join("\n") }]
    })

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

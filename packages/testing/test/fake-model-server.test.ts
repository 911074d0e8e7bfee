import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { collectSse, defaultText, FakeModelServer, splitWords, textOf } from "@aide/testing"
import { APICallError, generateText, stepCountIs, streamText, type TextStreamPart, type ToolSet, tool } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"

let server: FakeModelServer

beforeAll(async () => {
  server = await FakeModelServer.start()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** The model as Aide's chat path builds it: the real provider over HTTP. */
const model = (options: { includeUsage?: boolean } = {}) =>
  createOpenAICompatible({ name: "fake", baseURL: server.url, apiKey: "test-key", ...options })("fake-model")

const collect = async <T extends ToolSet>(stream: AsyncIterable<TextStreamPart<T>>) => {
  const parts: Array<TextStreamPart<T>> = []
  for await (const part of stream) parts.push(part)
  return parts
}

const ofType = <T extends ToolSet, K extends TextStreamPart<T>["type"]>(parts: Array<TextStreamPart<T>>, type: K) =>
  parts.filter((part): part is Extract<TextStreamPart<T>, { type: K }> => part.type === type)

const silent = { onError: () => {} }

const weather = tool({
  description: "Current weather of a city",
  inputSchema: z.object({ city: z.string() }),
  // Without `execute`, the output type is `never`, which `exactOptionalPropertyTypes` rejects in a ToolSet.
  outputSchema: z.string(),
})

describe("streamed text", () => {
  it("arrives in the scripted chunks", async () => {
    server.script({ text: ["Hel", "lo, ", "world"] })
    const result = streamText({ model: model(), prompt: "Hi" })
    const chunks: Array<string> = []
    for await (const chunk of result.textStream) chunks.push(chunk)
    expect(chunks).toEqual(["Hel", "lo, ", "world"])
    expect(await result.finishReason).toBe("stop")
  })

  it("a string is streamed word by word", async () => {
    const turn = { text: "The quick brown fox." }
    server.script(turn)
    const parts = await collect(streamText({ model: model(), prompt: "Hi" }).fullStream)
    expect(ofType(parts, "text-delta").map((part) => part.text)).toEqual(splitWords(turn.text))
    expect(
      ofType(parts, "text-delta")
        .map((part) => part.text)
        .join(""),
    ).toBe(textOf(turn))
  })

  it("an empty queue answers the default text", async () => {
    const result = streamText({ model: model(), prompt: "Hi" })
    expect(await result.text).toBe(defaultText)
  })

  it("reasoning arrives as reasoning parts before the text", async () => {
    server.script({ reasoning: "Let me think.", text: "Done." })
    const parts = await collect(streamText({ model: model(), prompt: "Hi" }).fullStream)
    const kinds = parts
      .map((part) => part.type)
      .filter((type) => type.startsWith("reasoning") || type.startsWith("text"))
    expect(kinds.indexOf("reasoning-end")).toBeLessThan(kinds.indexOf("text-start"))
    expect(ofType(parts, "reasoning-delta").map((part) => part.text)).toEqual(["Let ", "me ", "think."])
  })
})

describe("non-streaming completions", () => {
  it("generateText gets a chat.completion with text, reasoning and usage", async () => {
    server.script({ text: ["Non-", "streamed"], reasoning: "Hmm", usage: { promptTokens: 11, completionTokens: 3 } })
    const result = await generateText({ model: model(), prompt: "Hi" })
    expect(result.text).toBe("Non-streamed")
    expect(result.reasoningText).toBe("Hmm")
    expect(result.usage.inputTokens).toBe(11)
    expect(result.usage.outputTokens).toBe(3)
    expect(server.requests[0]!.body.stream).toBeUndefined()
  })

  it("generateText gets tool calls with parsed input", async () => {
    server.script({ toolCalls: [{ id: "call_w", name: "weather", arguments: { city: "Oslo" } }] })
    const result = await generateText({ model: model(), prompt: "Weather?", tools: { weather } })
    expect(result.finishReason).toBe("tool-calls")
    expect(result.toolCalls).toMatchObject([{ toolCallId: "call_w", toolName: "weather", input: { city: "Oslo" } }])
  })
})

describe("tool calls", () => {
  it("come back as tool-call parts with parsed input, arguments streamed incrementally", async () => {
    server.script({
      toolCalls: [
        { name: "weather", arguments: { city: "Paris" } },
        { id: "call_custom", name: "weather", arguments: '{"city":"Lima"}' },
      ],
    })
    const result = streamText({ model: model(), prompt: "Weather?", tools: { weather }, ...silent })
    const parts = await collect(result.fullStream)
    const calls = ofType(parts, "tool-call")
    expect(calls).toHaveLength(2)
    expect(calls[0]).toMatchObject({ toolName: "weather", input: { city: "Paris" } })
    expect(calls[0]!.toolCallId).toMatch(/^call_\d+$/)
    expect(calls[1]).toMatchObject({ toolCallId: "call_custom", toolName: "weather", input: { city: "Lima" } })
    expect(ofType(parts, "tool-input-start")).toHaveLength(2)
    const firstInput = ofType(parts, "tool-input-delta").filter((part) => part.id === calls[0]!.toolCallId)
    expect(firstInput.length).toBeGreaterThan(1)
    expect(firstInput.map((part) => part.delta).join("")).toBe('{"city":"Paris"}')
    expect(await result.finishReason).toBe("tool-calls")
  })

  it("a tool loop sends the tool result back in the next request", async () => {
    server.script({ toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Rome" } }] }, { text: "Sunny." })
    const result = streamText({
      model: model(),
      prompt: "Weather in Rome?",
      tools: {
        weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `${city}: 24°C` }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(await result.text).toBe("Sunny.")
    expect(server.requests).toHaveLength(2)
    const second = server.requests[1]!.body.messages
    expect(second.at(-2)).toMatchObject({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } }],
    })
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1", content: "Rome: 24°C" })
  })
})

describe("usage", () => {
  it("is reported when the provider asks for include_usage", async () => {
    server.script({ text: "Counted.", usage: { promptTokens: 42, completionTokens: 7 } })
    const result = streamText({ model: model({ includeUsage: true }), prompt: "Hi" })
    const usage = await result.usage
    expect(usage.inputTokens).toBe(42)
    expect(usage.outputTokens).toBe(7)
    expect(usage.totalTokens).toBe(49)
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true })
  })

  it("is absent from the stream unless asked for, as with OpenAI", async () => {
    server.script({ text: "Uncounted.", usage: { promptTokens: 42, completionTokens: 7 } })
    const result = streamText({ model: model(), prompt: "Hi" })
    expect((await result.usage).inputTokens).toBeUndefined()
    expect(server.requests[0]!.body.stream_options).toBeUndefined()
  })
})

describe("errors", () => {
  it("an error turn answers an OpenAI error body that the stream reports", async () => {
    server.script({ error: { status: 400, message: "Context too long", code: "context_length_exceeded" } })
    const parts = await collect(streamText({ model: model(), prompt: "Hi", ...silent }).fullStream)
    const errors = ofType(parts, "error")
    expect(errors).toHaveLength(1)
    const error = errors[0]!.error
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).message).toBe("Context too long")
    expect((error as APICallError).statusCode).toBe(400)
    expect(ofType(parts, "text-delta")).toHaveLength(0)
  })

  it("generateText throws the error message", async () => {
    server.script({ error: { status: 401, message: "Invalid API key", type: "authentication_error" } })
    await expect(generateText({ model: model(), prompt: "Hi" })).rejects.toThrow("Invalid API key")
    expect(server.requests).toHaveLength(1)
  })

  it("a retryable status is retried by the SDK with the next turn", async () => {
    server.script(
      { error: { status: 503, message: "Overloaded", headers: { "retry-after-ms": "0" } } },
      { text: "Back." },
    )
    const result = await generateText({ model: model(), prompt: "Hi" })
    expect(result.text).toBe("Back.")
    expect(server.requests).toHaveLength(2)
  })

  it("failAfterChunks breaks the stream mid-way: the SDK's stream throws, onError is not called", async () => {
    server.script({ text: ["one ", "two ", "three ", "four"], failAfterChunks: 2 })
    const onErrorCalls: Array<unknown> = []
    const result = streamText({
      model: model(),
      prompt: "Hi",
      maxRetries: 0,
      onError: ({ error }) => void onErrorCalls.push(error),
    })
    const deltas: Array<string> = []
    const iterate = async () => {
      for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text)
    }
    const thrown = await iterate().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(APICallError.isInstance(thrown)).toBe(true)
    expect((thrown as APICallError).message).toBe("Failed to process successful response")
    expect(String((thrown as APICallError).cause)).toContain("terminated")
    expect(deltas).toEqual(["one ", "two "])
    expect(onErrorCalls).toHaveLength(0)
    await expect(result.text).rejects.toThrow("Failed to process successful response")
  })

  it("failAfterChunks on a non-streaming request drops the connection", async () => {
    server.script({ text: "never", failAfterChunks: 0 })
    await expect(generateText({ model: model(), prompt: "Hi", maxRetries: 0 })).rejects.toThrow()
  })
})

describe("timing", () => {
  it("latencyMs delays the first byte", async () => {
    server.script({ text: "Slow.", latencyMs: 300 })
    const started = performance.now()
    const result = streamText({ model: model(), prompt: "Hi" })
    for await (const _ of result.textStream) break
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
  })

  it("chunkDelayMs spaces the chunks", async () => {
    server.script({ text: ["a", "b", "c"], chunkDelayMs: 100 })
    const result = streamText({ model: model(), prompt: "Hi" })
    const times: Array<number> = []
    for await (const _ of result.textStream) times.push(performance.now())
    expect(times).toHaveLength(3)
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(180)
  })
})

describe("recorded requests", () => {
  it("keep what the model was sent: messages, settings, tools and headers", async () => {
    await generateText({
      model: model(),
      system: "Be brief.",
      prompt: "Hi there",
      temperature: 0.3,
      maxOutputTokens: 64,
      tools: { weather },
    })
    const [request] = server.requests
    expect(request!.path).toBe("/v1/chat/completions")
    expect(request!.headers.authorization).toBe("Bearer test-key")
    expect(request!.headers["user-agent"]).toContain("ai-sdk/provider-utils/")
    expect(request!.body).toMatchObject({
      model: "fake-model",
      temperature: 0.3,
      max_tokens: 64,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi there" },
      ],
      tools: [{ type: "function", function: { name: "weather", description: "Current weather of a city" } }],
    })
    expect(request!.body.tools![0]!.function.parameters).toMatchObject({ type: "object", required: ["city"] })
  })

  it("reset forgets scripted turns and requests", async () => {
    server.script({ text: "a" }, { text: "b" })
    await generateText({ model: model(), prompt: "Hi" })
    expect(server.remaining).toBe(1)
    server.reset()
    expect(server.remaining).toBe(0)
    expect(server.requests).toHaveLength(0)
  })
})

describe("matching turns", () => {
  it("a turn with match is consumed only by a request it matches", async () => {
    const isTitle = (request: { body: { messages: ReadonlyArray<{ content?: unknown }> } }) =>
      request.body.messages.some((m) => typeof m.content === "string" && m.content.includes("Write a title"))
    server.script({ text: "Answer." }, { text: "A Title", match: isTitle })
    server.script({ text: "Second answer." })
    const title = await generateText({ model: model(), system: "Write a title for this chat.", prompt: "Hi" })
    const chat = await generateText({ model: model(), prompt: "Hi" })
    const chat2 = await generateText({ model: model(), prompt: "Hi" })
    expect([title.text, chat.text, chat2.text]).toEqual(["A Title", "Answer.", "Second answer."])
  })

  it("a turn whose match rejects every request stays queued", async () => {
    server.script({ text: "Only for titles", match: () => false })
    const result = await generateText({ model: model(), prompt: "Hi" })
    expect(result.text).toBe(defaultText)
    expect(server.remaining).toBe(1)
  })
})

describe("closing", () => {
  it("close cuts streams in flight and frees the port", async () => {
    const own = await FakeModelServer.start()
    own.script({ text: ["a", "b", "c", "d"], chunkDelayMs: 200 })
    const result = streamText({
      model: createOpenAICompatible({ name: "fake", baseURL: own.url })("fake-model"),
      prompt: "Hi",
      maxRetries: 0,
      ...silent,
    })
    const reader = result.textStream[Symbol.asyncIterator]()
    expect((await reader.next()).value).toBe("a")
    await own.close()
    await expect(result.text).rejects.toThrow()
    await expect(fetch(`${own.url}/models`)).rejects.toThrow()
  })
})

describe("wire format", () => {
  const post = (body: object) =>
    fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })

  it("streams chat.completion.chunk events, a usage chunk when asked, then [DONE]", async () => {
    server.script({ text: ["x", "y"], toolCalls: [{ id: "c1", name: "f", arguments: { a: 1 } }] })
    const response = await post({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const events = (await collectSse(response)) as Array<any>
    expect(events.at(-1)).toBe("[DONE]")
    expect(events[0]).toMatchObject({
      object: "chat.completion.chunk",
      model: "m",
      choices: [{ delta: { role: "assistant", content: "x" } }],
    })
    expect(events.at(-2)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } })
    expect(events.at(-3)).toMatchObject({ choices: [{ delta: {}, finish_reason: "tool_calls" }] })
    const toolDeltas = events.flatMap((event) => event.choices?.[0]?.delta?.tool_calls ?? [])
    expect(toolDeltas[0]).toEqual({ index: 0, id: "c1", type: "function", function: { name: "f", arguments: "" } })
    expect(toolDeltas.map((delta) => delta.function.arguments).join("")).toBe('{"a":1}')
    expect(toolDeltas.length).toBeGreaterThan(2)
  })

  it("GET /v1/models lists model ids", async () => {
    const response = await fetch(`${server.url}/models`)
    expect(await response.json()).toMatchObject({
      object: "list",
      data: [{ id: "fake-model" }, { id: "fake-model-mini" }],
    })
  })

  it("unknown routes answer 404 with an OpenAI error body", async () => {
    const response = await fetch(`${server.url}/images/generations`, { method: "POST", body: "{}" })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { message: "Unknown route: POST /v1/images/generations" } })
  })

  it("a body that is not JSON answers 400", async () => {
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{nope" })
    expect(response.status).toBe(400)
    expect(server.requests).toHaveLength(0)
  })
})

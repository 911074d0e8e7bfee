import { type ChatCompletionRequest, splitWords, type Turn, textChunks, textOf } from "./Turn.js"

// The OpenAI chat-completions wire format, as far as the fake model speaks it.

interface ResolvedToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** What one turn answers to one request, independent of streaming or not. */
export interface Answer {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly reasoning: string
  readonly reasoningChunks: ReadonlyArray<string>
  readonly textChunks: ReadonlyArray<string>
  readonly toolCalls: ReadonlyArray<ResolvedToolCall>
  readonly finishReason: string
  readonly usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
}

const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4))

export const makeAnswer = (
  turn: Turn,
  request: ChatCompletionRequest,
  ids: { readonly completion: () => string; readonly toolCall: () => string },
): Answer => {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? ids.toolCall(),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }))
  const reasoning = turn.reasoning ?? ""
  const text = textOf(turn)
  const outputChars = reasoning.length + text.length + toolCalls.reduce((n, c) => n + c.arguments.length, 0)
  const promptTokens = turn.usage?.promptTokens ?? estimateTokens(JSON.stringify(request.messages ?? []).length)
  const completionTokens = turn.usage?.completionTokens ?? estimateTokens(outputChars)
  return {
    id: ids.completion(),
    created: Math.floor(Date.now() / 1000),
    model: typeof request.model === "string" ? request.model : "fake-model",
    reasoning,
    reasoningChunks: splitWords(reasoning),
    textChunks: textChunks(turn),
    toolCalls,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  }
}

/** A non-streaming `chat.completion` object. */
export const completion = (answer: Answer) => ({
  id: answer.id,
  object: "chat.completion",
  created: answer.created,
  model: answer.model,
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: answer.textChunks.length > 0 || answer.toolCalls.length === 0 ? answer.textChunks.join("") : null,
        ...(answer.reasoning.length > 0 ? { reasoning_content: answer.reasoning } : {}),
        ...(answer.toolCalls.length > 0
          ? {
              tool_calls: answer.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      },
      finish_reason: answer.finishReason,
    },
  ],
  usage: answer.usage,
})

/** Splits tool arguments into up to three pieces, so clients see them arrive incrementally. */
const argumentPieces = (args: string): ReadonlyArray<string> => {
  if (args.length === 0) return []
  const size = Math.ceil(args.length / 3)
  const pieces: Array<string> = []
  for (let i = 0; i < args.length; i += size) pieces.push(args.slice(i, i + size))
  return pieces
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in order: reasoning deltas, text
 * deltas, tool-call deltas, the finish chunk, and (when asked for) a usage chunk with no choices.
 */
export const chunks = (answer: Answer, includeUsage: boolean): ReadonlyArray<object> => {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: answer.id,
    object: "chat.completion.chunk",
    created: answer.created,
    model: answer.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })
  const deltas: Array<object> = [
    ...answer.reasoningChunks.map((piece) => ({ reasoning_content: piece })),
    ...answer.textChunks.map((piece) => ({ content: piece })),
  ]
  answer.toolCalls.forEach((call, index) => {
    deltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
    })
    for (const piece of argumentPieces(call.arguments)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] })
    }
  })
  // As OpenAI does, the first delta carries the role.
  const [first, ...rest] = deltas
  const out: Array<object> = [
    chunk({ role: "assistant", ...(first ?? { content: "" }) }),
    ...rest.map((delta) => chunk(delta)),
    chunk({}, answer.finishReason),
  ]
  if (includeUsage) {
    out.push({
      id: answer.id,
      object: "chat.completion.chunk",
      created: answer.created,
      model: answer.model,
      choices: [],
      usage: answer.usage,
    })
  }
  return out
}

/** An OpenAI error body. */
export const errorBody = (message: string, type: string, code: string | null = null) => ({
  error: { message, type, param: null, code },
})

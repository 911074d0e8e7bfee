import type { LanguageModelV3, LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider"

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
}

/** The text of the last user message of a prompt. */
const lastUserText = (prompt: LanguageModelV3Prompt) => {
  const user = prompt.findLast((message) => message.role === "user")
  if (user === undefined || typeof user.content === "string") return ""
  return user.content.map((part) => (part.type === "text" ? part.text : "")).join("")
}

/**
 * A language model of our own, speaking the AI SDK's provider interface (`LanguageModelV3`):
 * it answers "You said: …". Any model an embedder can wrap this way (a local runtime, a gateway)
 * becomes a provider of the kernel.
 */
export const echoModel = (modelId: string): LanguageModelV3 => ({
  specificationVersion: "v3",
  provider: "local",
  modelId,
  supportedUrls: {},
  doGenerate: async (options) => ({
    content: [{ type: "text", text: `You said: ${lastUserText(options.prompt)}` }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: [],
  }),
  doStream: async (options) => {
    const parts: Array<LanguageModelV3StreamPart> = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "0" },
      { type: "text-delta", id: "0", delta: `You said: ${lastUserText(options.prompt)}` },
      { type: "text-end", id: "0" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ]
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part)
          controller.close()
        },
      }),
    }
  },
})

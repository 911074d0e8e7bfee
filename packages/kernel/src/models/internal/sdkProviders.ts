import type { ProviderDefinition } from "../Providers.js"

// Base URLs are passed explicitly: the SDKs would otherwise fall back to reading process.env.
const openAiUrl = "https://api.openai.com/v1"
const anthropicUrl = "https://api.anthropic.com/v1"

/** The providers with an AI SDK package of their own. */
export const sdkProviders: ReadonlyArray<ProviderDefinition> = [
  {
    id: "openai",
    name: "OpenAI",
    models: [
      "gpt-5.5",
      "gpt-5.4",
      "gpt-5.4-mini",
      "gpt-5.4-nano",
      "gpt-5",
      "gpt-5-mini",
      "gpt-4.1",
      "gpt-4.1-mini",
      "gpt-4.1-nano",
      "gpt-4o",
      "gpt-4o-mini",
      "o3",
      "o4-mini",
    ],
    requiredEnv: ["OPENAI_API_KEY"],
    envVars: ["OPENAI_API_KEY"],
    docUrl: "https://platform.openai.com/docs/models",
    load: async ({ env, fetch }) => {
      const { createOpenAI } = await import("@ai-sdk/openai")
      const openai = createOpenAI({
        apiKey: env("OPENAI_API_KEY")!,
        baseURL: env("OPENAI_BASE_URL") ?? openAiUrl,
        fetch,
      })
      // Chat Completions rather than Responses: every OpenAI-compatible server (and fake) speaks it.
      return (model) => openai.chat(model)
    },
    loadEmbedding: async ({ env, fetch }) => {
      const { createOpenAI } = await import("@ai-sdk/openai")
      const openai = createOpenAI({
        apiKey: env("OPENAI_API_KEY")!,
        baseURL: env("OPENAI_BASE_URL") ?? openAiUrl,
        fetch,
      })
      return (model) => openai.embeddingModel(model)
    },
  },
  {
    id: "anthropic",
    name: "Anthropic",
    models: [
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-opus-4-5",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-opus-4-1",
      "claude-sonnet-4-0",
    ],
    requiredEnv: ["ANTHROPIC_API_KEY"],
    envVars: ["ANTHROPIC_API_KEY"],
    docUrl: "https://docs.anthropic.com/en/docs/about-claude/models",
    load: async ({ env, fetch }) => {
      const { createAnthropic } = await import("@ai-sdk/anthropic")
      const anthropic = createAnthropic({
        apiKey: env("ANTHROPIC_API_KEY")!,
        baseURL: env("ANTHROPIC_BASE_URL") ?? anthropicUrl,
        fetch,
      })
      return (model) => anthropic(model)
    },
  },
  {
    id: "google",
    name: "Google Gemini",
    models: [
      "gemini-3-pro-preview",
      "gemini-3-flash-preview",
      "gemini-2.5-pro",
      "gemini-2.5-flash",
      "gemini-2.5-flash-lite",
      "gemini-pro-latest",
      "gemini-flash-latest",
    ],
    requiredEnv: ["GOOGLE_GENERATIVE_AI_API_KEY"],
    envVars: ["GOOGLE_GENERATIVE_AI_API_KEY"],
    docUrl: "https://ai.google.dev/gemini-api/docs/models",
    load: async ({ env, fetch }) => {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google")
      const google = createGoogleGenerativeAI({ apiKey: env("GOOGLE_GENERATIVE_AI_API_KEY")!, fetch })
      return (model) => google(model)
    },
  },
]

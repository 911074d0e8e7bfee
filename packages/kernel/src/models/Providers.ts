import { Schema } from "effect"

/**
 * The static provider catalogue: which AI providers Aide can talk to, the environment
 * variables that configure them, and a curated list of current model ids. It depends on
 * nothing, so `config/` validates `models.operator.provider` against it without a cycle.
 */
export const providerIds = ["openai", "anthropic", "google", "openai-compatible"] as const
export type ProviderId = (typeof providerIds)[number]

export const isProviderId = (value: unknown): value is ProviderId =>
  typeof value === "string" && (providerIds as ReadonlyArray<string>).includes(value)

export interface ProviderDescriptor {
  readonly id: ProviderId
  readonly name: string
  /** Suggestions for a model picker; any id the provider accepts works. */
  readonly models: ReadonlyArray<string>
  /** Variables that must all be set (non-empty) for the provider to be configured. */
  readonly requiredEnv: ReadonlyArray<string>
  /** What `GET /api/models` lists as `envVars`: the required ones and the optional key. */
  readonly envVars: ReadonlyArray<string>
  readonly docUrl: string
}

export const catalogue: ReadonlyArray<ProviderDescriptor> = [
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
  },
  {
    // Ollama, LM Studio, vLLM, OpenRouter…: the models are whatever the server serves.
    id: "openai-compatible",
    name: "OpenAI-compatible (Ollama, LM Studio, vLLM, OpenRouter)",
    models: [],
    requiredEnv: ["OPENAI_COMPATIBLE_BASE_URL"],
    envVars: ["OPENAI_COMPATIBLE_BASE_URL", "OPENAI_COMPATIBLE_API_KEY"],
    docUrl: "https://ai-sdk.dev/providers/openai-compatible-providers",
  },
]

/** SPEC "Provider" (element of `GET /api/models`). */
export const Provider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  models: Schema.Array(Schema.String),
  configured: Schema.Boolean.annotations({ description: "false when a required environment variable is unset" }),
  docUrl: Schema.String,
  gateway: Schema.Null,
  envVars: Schema.Array(Schema.String),
}).annotations({ identifier: "Provider" })
export type Provider = typeof Provider.Type

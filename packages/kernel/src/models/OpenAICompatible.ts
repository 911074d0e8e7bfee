import type { ModelListRequest, ProviderContext, ProviderDefinition, ReadEnv } from "./Providers.js"

/**
 * Providers that speak OpenAI's Chat Completions API, made with `@ai-sdk/openai-compatible`:
 * the generic `openai-compatible` (any server, at `OPENAI_COMPATIBLE_BASE_URL`) and presets that
 * know a service's address and key variable. Every preset's address can be overridden with
 * `<ID>_BASE_URL` (id upper-cased): a proxy, a self-hosted mirror, a test's fake server.
 */
export interface OpenAICompatiblePreset {
  readonly id: string
  readonly name: string
  readonly docUrl: string
  /** The service's address, ending before `/chat/completions`; without one, `baseUrlVar` must be set. */
  readonly baseUrl?: string
  /** Overrides `baseUrl`; default `<ID>_BASE_URL`. */
  readonly baseUrlVar?: string
  /** Default `<ID>_API_KEY`; sent as `Authorization: Bearer …` when set. */
  readonly apiKeyVar?: string
  /** `required` (default) for a hosted service; `optional` for a server that may run without one. */
  readonly apiKey?: "required" | "optional"
  /** A server on this machine: configured when `baseUrlVar` is set or it answers at `baseUrl`. */
  readonly local?: boolean
  /** Suggestions, shown when the server's own list cannot be had. */
  readonly models?: ReadonlyArray<string>
  /** Whether the server answers `GET <baseUrl>/models`; default true. */
  readonly listsModels?: boolean
  /** Whether to ask for token usage in streams (`stream_options`); default true. */
  readonly includeUsage?: boolean
}

const variable = (id: string, suffix: string) => `${id.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_${suffix}`

/** A provider over `@ai-sdk/openai-compatible` from a preset. */
export const preset = (options: OpenAICompatiblePreset): ProviderDefinition => {
  const baseUrlVar = options.baseUrlVar ?? variable(options.id, "BASE_URL")
  const apiKeyVar = options.apiKeyVar ?? variable(options.id, "API_KEY")
  const keyRequired = (options.apiKey ?? "required") === "required"
  const requiredEnv = [...(options.baseUrl === undefined ? [baseUrlVar] : []), ...(keyRequired ? [apiKeyVar] : [])]
  // A hosted service lists its key (like `openai`); a server without a fixed address its URL too.
  const envVars = keyRequired && options.baseUrl !== undefined ? [apiKeyVar] : [baseUrlVar, apiKeyVar]
  const baseUrlOf = (env: ReadEnv) => env(baseUrlVar) ?? options.baseUrl
  const modelList = (env: ReadEnv): ModelListRequest | undefined => {
    const baseUrl = baseUrlOf(env)
    if (baseUrl === undefined || options.listsModels === false) return undefined
    const apiKey = env(apiKeyVar)
    return {
      url: `${baseUrl.replace(/\/+$/, "")}/models`,
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
      probe: options.local === true && env(baseUrlVar) === undefined,
    }
  }
  const create = async ({ env, fetch }: ProviderContext) => {
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
    const apiKey = env(apiKeyVar)
    return createOpenAICompatible({
      name: options.id,
      baseURL: baseUrlOf(env)!,
      includeUsage: options.includeUsage ?? true,
      fetch,
      ...(apiKey === undefined ? {} : { apiKey }),
    })
  }
  return {
    id: options.id,
    name: options.name,
    models: options.models ?? [],
    requiredEnv,
    envVars,
    docUrl: options.docUrl,
    load: async (context) => {
      const provider = await create(context)
      return (model) => provider.chatModel(model)
    },
    loadEmbedding: async (context) => {
      const provider = await create(context)
      return (model) => provider.embeddingModel(model)
    },
    modelList,
  }
}

const local = (id: string, name: string, port: number, docUrl: string, models: ReadonlyArray<string> = []) =>
  preset({ id, name, docUrl, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "optional", local: true, models })

/** The generic provider and the presets of the default catalogue, in the order `GET /api/models` lists them. */
export const presets: ReadonlyArray<ProviderDefinition> = [
  preset({
    id: "openai-compatible",
    name: "OpenAI-compatible (any server)",
    docUrl: "https://ai-sdk.dev/providers/openai-compatible-providers",
    apiKey: "optional",
  }),
  local("ollama", "Ollama", 11434, "https://ollama.com/library", ["llama3.2", "qwen3", "gemma3", "mistral"]),
  local("lmstudio", "LM Studio", 1234, "https://lmstudio.ai/docs/app/api/endpoints/openai"),
  local("vllm", "vLLM", 8000, "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html"),
  local("llamacpp", "llama.cpp server", 8080, "https://github.com/ggml-org/llama.cpp/tree/master/tools/server"),
  preset({
    id: "openrouter",
    name: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    docUrl: "https://openrouter.ai/models",
    models: ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4.5", "google/gemini-2.5-flash", "deepseek/deepseek-chat"],
  }),
  preset({
    id: "groq",
    name: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    docUrl: "https://console.groq.com/docs/models",
    models: ["llama-3.3-70b-versatile", "llama-3.1-8b-instant", "openai/gpt-oss-120b", "openai/gpt-oss-20b"],
  }),
  preset({
    id: "deepseek",
    name: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    docUrl: "https://api-docs.deepseek.com/quick_start/pricing",
    models: ["deepseek-chat", "deepseek-reasoner"],
  }),
  preset({
    id: "mistral",
    name: "Mistral AI",
    baseUrl: "https://api.mistral.ai/v1",
    docUrl: "https://docs.mistral.ai/getting-started/models/",
    models: ["mistral-large-latest", "mistral-medium-latest", "mistral-small-latest", "codestral-latest"],
    // Mistral refuses parameters it does not know; it reports usage in the last chunk anyway.
    includeUsage: false,
  }),
  preset({
    id: "xai",
    name: "xAI Grok",
    baseUrl: "https://api.x.ai/v1",
    docUrl: "https://docs.x.ai/docs/models",
    models: ["grok-4", "grok-3", "grok-3-mini"],
  }),
  preset({
    id: "together",
    name: "Together AI",
    baseUrl: "https://api.together.xyz/v1",
    docUrl: "https://docs.together.ai/docs/serverless-models",
    models: ["meta-llama/Llama-3.3-70B-Instruct-Turbo", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct-Turbo"],
  }),
  preset({
    id: "fireworks",
    name: "Fireworks AI",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    docUrl: "https://fireworks.ai/models",
    models: ["accounts/fireworks/models/llama-v3p3-70b-instruct", "accounts/fireworks/models/deepseek-v3"],
  }),
  preset({
    id: "cerebras",
    name: "Cerebras",
    baseUrl: "https://api.cerebras.ai/v1",
    docUrl: "https://inference-docs.cerebras.ai/models/overview",
    models: ["llama-3.3-70b", "llama3.1-8b", "gpt-oss-120b"],
  }),
  preset({
    id: "perplexity",
    name: "Perplexity",
    baseUrl: "https://api.perplexity.ai",
    docUrl: "https://docs.perplexity.ai/getting-started/models",
    models: ["sonar", "sonar-pro", "sonar-reasoning", "sonar-reasoning-pro"],
    listsModels: false,
  }),
  preset({
    id: "deepinfra",
    name: "DeepInfra",
    baseUrl: "https://api.deepinfra.com/v1/openai",
    docUrl: "https://deepinfra.com/models",
    models: ["meta-llama/Llama-3.3-70B-Instruct", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct"],
  }),
  preset({
    id: "nvidia",
    name: "NVIDIA NIM",
    baseUrl: "https://integrate.api.nvidia.com/v1",
    docUrl: "https://build.nvidia.com/models",
    models: ["meta/llama-3.3-70b-instruct", "deepseek-ai/deepseek-r1"],
  }),
  preset({
    id: "huggingface",
    name: "Hugging Face Inference Providers",
    baseUrl: "https://router.huggingface.co/v1",
    apiKeyVar: "HF_TOKEN",
    docUrl: "https://huggingface.co/docs/inference-providers/index",
    models: ["meta-llama/Llama-3.3-70B-Instruct", "deepseek-ai/DeepSeek-V3-0324", "Qwen/Qwen3-32B"],
  }),
]

import type { LanguageModel } from "ai"
import { Context, Effect, Layer } from "effect"
import { ModelNotConfigured, UnknownProvider } from "./ModelErrors.js"
import { catalogue, type Provider, type ProviderDescriptor, type ProviderId } from "./Providers.js"

/** Which model to use, as `models.operator` of the config has it. */
export interface ModelSelection {
  readonly provider: string
  readonly model: string
  readonly temperature?: number | undefined
  readonly maxTokens?: number | undefined
}

/** Call settings for `streamText`/`generateText`: spread them into the call. */
export interface ModelSettings {
  readonly temperature?: number
  readonly maxOutputTokens?: number
}

export interface ResolvedModel {
  readonly model: LanguageModel
  readonly settings: ModelSettings
}

/**
 * The AI providers of the catalogue, configured from environment variables the host passes
 * in (the kernel never reads `process.env`), and the language models they serve.
 *
 * @example
 * const { model, settings } = yield* registry.languageModel(config.models.operator)
 * streamText({ model, ...settings, messages })
 */
export class ModelRegistry extends Context.Tag("@aide/kernel/ModelRegistry")<
  ModelRegistry,
  {
    /** The catalogue, with `configured` computed from the environment. */
    readonly providers: Effect.Effect<ReadonlyArray<Provider>>
    readonly languageModel: (
      selection: ModelSelection,
    ) => Effect.Effect<ResolvedModel, ModelNotConfigured | UnknownProvider>
  }
>() {}

export interface ModelRegistryOptions {
  /** The host's environment (the server passes `process.env`). Empty strings count as unset. */
  readonly env: Readonly<Record<string, string | undefined>>
}

// Passed explicitly: the SDKs would otherwise fall back to reading process.env themselves.
const openAiUrl = "https://api.openai.com/v1"
const anthropicUrl = "https://api.anthropic.com/v1"

export const make = (options: ModelRegistryOptions) => {
  const read = (name: string): string | undefined => {
    const value = options.env[name]
    return value === undefined || value.trim() === "" ? undefined : value.trim()
  }
  const isConfigured = (provider: ProviderDescriptor) => provider.requiredEnv.every((name) => read(name) !== undefined)

  const providers: ReadonlyArray<Provider> = catalogue.map((provider) => ({
    id: provider.id,
    name: provider.name,
    models: provider.models,
    configured: isConfigured(provider),
    docUrl: provider.docUrl,
    gateway: null,
    envVars: provider.envVars,
  }))

  // Factories are created on first use: most hosts configure one provider, and its SDK is
  // imported only then (the four SDKs are ~1 MB of code to parse at every start otherwise).
  const factories: Record<ProviderId, () => Promise<(model: string) => LanguageModel>> = {
    openai: async () => {
      const { createOpenAI } = await import("@ai-sdk/openai")
      // Chat Completions rather than Responses: every OpenAI-compatible server (and fake) speaks it.
      const openai = createOpenAI({ apiKey: read("OPENAI_API_KEY")!, baseURL: read("OPENAI_BASE_URL") ?? openAiUrl })
      return (model) => openai.chat(model)
    },
    anthropic: async () => {
      const { createAnthropic } = await import("@ai-sdk/anthropic")
      const anthropic = createAnthropic({
        apiKey: read("ANTHROPIC_API_KEY")!,
        baseURL: read("ANTHROPIC_BASE_URL") ?? anthropicUrl,
      })
      return (model) => anthropic(model)
    },
    google: async () => {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google")
      const google = createGoogleGenerativeAI({ apiKey: read("GOOGLE_GENERATIVE_AI_API_KEY")! })
      return (model) => google(model)
    },
    "openai-compatible": async () => {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible")
      const apiKey = read("OPENAI_COMPATIBLE_API_KEY")
      const compatible = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: read("OPENAI_COMPATIBLE_BASE_URL")!,
        includeUsage: true,
        ...(apiKey === undefined ? {} : { apiKey }),
      })
      return (model) => compatible.chatModel(model)
    },
  }
  const created = new Map<ProviderId, Promise<(model: string) => LanguageModel>>()
  const factory = (id: ProviderId) => {
    let create = created.get(id)
    if (create === undefined) {
      create = factories[id]().catch((error: unknown) => {
        created.delete(id)
        throw error
      })
      created.set(id, create)
    }
    return create
  }

  // A model object is stateless (settings + response schemas), but building one is not cheap: the
  // providers compile their zod response schemas per instance, on every request otherwise.
  const models = new Map<string, LanguageModel>()
  const maxCachedModels = 64
  const modelFor = async (id: ProviderId, modelId: string) => {
    const key = `${id}\u0000${modelId}`
    let model = models.get(key)
    if (model === undefined) {
      model = (await factory(id))(modelId)
      if (models.size >= maxCachedModels) models.delete(models.keys().next().value!)
      models.set(key, model)
    }
    return model
  }

  const languageModel = Effect.fn("ModelRegistry.languageModel")(function* (selection: ModelSelection) {
    const provider = catalogue.find((entry) => entry.id === selection.provider)
    if (provider === undefined) {
      return yield* new UnknownProvider({
        provider: selection.provider,
        message: `unknown provider ${selection.provider} (known: ${catalogue.map((entry) => entry.id).join(", ")})`,
      })
    }
    const missing = provider.requiredEnv.filter((name) => read(name) === undefined)
    if (missing.length > 0) {
      return yield* new ModelNotConfigured({
        provider: provider.id,
        envVars: missing,
        message: `provider ${provider.id} is not configured: set ${missing.join(" and ")}`,
      })
    }
    const model =
      models.get(`${provider.id}\u0000${selection.model}`) ??
      (yield* Effect.promise(() => modelFor(provider.id, selection.model)))
    const settings: { temperature?: number; maxOutputTokens?: number } = {}
    if (selection.temperature !== undefined) settings.temperature = selection.temperature
    if (selection.maxTokens !== undefined) settings.maxOutputTokens = selection.maxTokens
    return { model, settings } satisfies ResolvedModel
  })

  return ModelRegistry.of({ providers: Effect.succeed(providers), languageModel })
}

/** The registry over the host's environment, e.g. `ModelRegistry.layer({ env: process.env })` in a server. */
export const layer = (options: ModelRegistryOptions): Layer.Layer<ModelRegistry> =>
  Layer.sync(ModelRegistry, () => make(options))

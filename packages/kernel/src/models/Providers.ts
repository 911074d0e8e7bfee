import type { EmbeddingModel, LanguageModel } from "ai"
import { Schema } from "effect"
import { sdkProviders } from "./internal/sdkProviders.js"
import { presets } from "./OpenAICompatible.js"

/**
 * What a provider is to the `ModelRegistry`: its metadata for `GET /api/models`, the
 * environment variables that configure it, and how its language models are made. The default
 * `catalogue` holds the providers people run; an embedder adds its own definitions (Bedrock, a
 * private gateway…) with `ModelRegistry.layer({ env, providers: [...catalogue, mine] })`.
 */

/** One variable of the host's environment: trimmed, `undefined` when unset or blank. */
export type ReadEnv = (name: string) => string | undefined

/** What a provider's `load` and `modelList` get from the registry. */
export interface ProviderContext {
  readonly env: ReadEnv
  /** The registry's fetch: hand it to the SDK, so an embedder's fetch (a proxy, a test) applies. */
  readonly fetch: typeof globalThis.fetch
}

/** Where a server lists the models it serves, OpenAI style: `GET url` → `{ data: [{ id }] }`. */
export interface ModelListRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /**
   * The server may well not be there (a local server's default address nobody configured): a
   * failure is not warned about, and `configured` is whether the server answered.
   */
  readonly probe: boolean
}

export interface ProviderDefinition {
  /** What `models.operator.provider` names, e.g. `groq`. */
  readonly id: string
  readonly name: string
  /** Suggestions for a model picker; any id the provider accepts works. */
  readonly models: ReadonlyArray<string>
  /** Variables that must all be set (non-empty) for the provider to be configured. */
  readonly requiredEnv: ReadonlyArray<string>
  /** What `GET /api/models` lists as `envVars`: the required ones and the optional key. */
  readonly envVars: ReadonlyArray<string>
  readonly docUrl: string
  /**
   * The provider's model factory, called once, on first use: import the SDK inside it, so a
   * provider nobody selects costs nothing at start.
   *
   * @example
   * load: async ({ env, fetch }) => {
   *   const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock")
   *   const bedrock = createAmazonBedrock({ region: env("AWS_REGION"), fetch })
   *   return (model) => bedrock(model)
   * }
   */
  readonly load: (context: ProviderContext) => Promise<(modelId: string) => LanguageModel>
  /** The provider's embedding models, if it has any (for semantic recall); loaded like `load`. */
  readonly loadEmbedding?: (context: ProviderContext) => Promise<(modelId: string) => EmbeddingModel>
  /** Where the server lists its models, if it does: `GET /api/models` then lists those. */
  readonly modelList?: (env: ReadEnv) => ModelListRequest | undefined
}

/** A provider's variables as a connection gives them: `{ OPENAI_API_KEY: "…" }`. */
export type ConnectionValues = Readonly<Record<string, string>>

/** What a connection of a provider may set, must set, and whether the host's environment wins (`ModelRegistry.connectable`). */
export interface Connectable {
  readonly envVars: ReadonlyArray<string>
  readonly requiredEnv: ReadonlyArray<string>
  readonly setByEnvironment: boolean
}

/** The default catalogue: the SDK providers, the generic OpenAI-compatible one and its presets. */
export const catalogue: ReadonlyArray<ProviderDefinition> = [...sdkProviders, ...presets]

/** The ids of the default catalogue, in its order. */
export const providerIds: ReadonlyArray<string> = catalogue.map((provider) => provider.id)

/** SPEC "Provider" (element of `GET /api/models`). */
export const Provider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  models: Schema.Array(Schema.String),
  configured: Schema.Boolean.annotations({
    description:
      "false when a required environment variable is unset (a local server without one: when it does not answer at its default address)",
  }),
  docUrl: Schema.String,
  gateway: Schema.Null,
  envVars: Schema.Array(Schema.String),
}).annotations({ identifier: "Provider" })
export type Provider = typeof Provider.Type

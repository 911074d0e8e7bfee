import type { EmbeddingModel, LanguageModel } from "ai"
import { Context, Effect, Either, Layer, Option, type Scope } from "effect"
import * as ProviderValues from "./internal/ProviderValues.js"
import { EmbeddingsUnsupported, ModelNotConfigured, UnknownProvider } from "./ModelErrors.js"
import {
  type Connectable,
  type ConnectionValues,
  catalogue,
  type Provider,
  type ProviderContext,
  type ProviderDefinition,
} from "./Providers.js"
import * as ServedModels from "./ServedModels.js"

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
 * The AI providers Aide can talk to, configured from environment variables the host passes
 * in (the kernel never reads `process.env`), and the language models they serve.
 *
 * @example
 * const { model, settings } = yield* registry.languageModel(config.models.operator)
 * streamText({ model, ...settings, messages })
 */
export class ModelRegistry extends Context.Tag("@aide/kernel/ModelRegistry")<
  ModelRegistry,
  {
    /** The ids `languageModel` knows: what `models.operator.provider` of the config may name. */
    readonly providerIds: ReadonlyArray<string>
    /**
     * Every provider, with `configured` computed from the environment and, for servers that
     * list their models, those models (asked at most every few minutes, within seconds).
     */
    readonly providers: Effect.Effect<ReadonlyArray<Provider>>
    readonly languageModel: (
      selection: ModelSelection,
    ) => Effect.Effect<ResolvedModel, ModelNotConfigured | UnknownProvider>
    /**
     * The operator model of a config that names none, given the catalogue's default: that one
     * when its provider is configured, else the first provider the host configured explicitly
     * (its variables set) with its first suggested or served model; `selection` when there is none.
     * Optional: a registry without it (a test's) keeps the catalogue's default.
     */
    readonly defaultOperator?: (selection: ModelSelection) => Effect.Effect<ModelSelection>
    /**
     * An embedding model (semantic recall's `embedder`). Optional: a registry without it (an
     * embedder's own) leaves recall on full-text search.
     */
    readonly embeddingModel?: (selection: {
      readonly provider: string
      readonly model: string
    }) => Effect.Effect<EmbeddingModel, ModelNotConfigured | UnknownProvider | EmbeddingsUnsupported>
    /**
     * Sets (or, with `undefined`, drops) the values of a provider's variables that the owner
     * gave as a connection (`ProviderConnections`), taking effect at once: the provider's
     * cached factories, models and model list are dropped. The host's environment still wins:
     * for a provider any of whose `envVars` the environment sets, the connection is ignored.
     * Optional: a registry without it (a test's) takes no connections.
     */
    readonly connect?: (provider: string, values: ConnectionValues | undefined) => Effect.Effect<void, UnknownProvider>
    /**
     * Asks a configured provider for its models afresh: `Right(ids)`, `Left(why not)` in words,
     * `undefined` for a provider that does not list its models (the SDK providers).
     */
    readonly listModels?: (
      provider: string,
    ) => Effect.Effect<Either.Either<ReadonlyArray<string>, string> | undefined, ModelNotConfigured | UnknownProvider>
    /**
     * What a connection of the provider may set (`envVars`), must set (`requiredEnv`), and
     * whether the host's environment sets any of them (then it wins); `undefined`: unknown id.
     */
    readonly connectable?: (provider: string) => Connectable | undefined
  }
>() {}

export interface ModelRegistryOptions {
  /** The host's environment (the server passes `process.env`). Empty strings count as unset. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Default `Providers.catalogue`; add yours with `[...Providers.catalogue, mine]`. Ids must be unique. */
  readonly providers?: ReadonlyArray<ProviderDefinition>
  /** Used for every provider call and model list; default the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch
  /** How the model lists of OpenAI-compatible servers are asked and cached. */
  readonly modelLists?: Partial<ServedModels.Settings>
}

/** The registry; model-list requests run in `scope` when given (see `ServedModels.make`). */
export const make = (options: ModelRegistryOptions, scope?: Scope.Scope) => {
  const definitions = options.providers ?? catalogue
  const byId = new Map<string, ProviderDefinition>()
  for (const definition of definitions) {
    if (byId.has(definition.id)) throw new Error(`two providers have the id ${definition.id}`)
    byId.set(definition.id, definition)
  }
  const providerIds = definitions.map((definition) => definition.id)

  const values = ProviderValues.make(options.env)
  const { readerFor } = values
  // Looked up at each call, so a fetch replaced after start (a test's interceptor) applies.
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const contextFor = (definition: ProviderDefinition): ProviderContext => ({ env: readerFor(definition), fetch })
  const served = ServedModels.make({ ...ServedModels.defaults, ...options.modelLists }, fetch, scope)
  const isConfigured = (definition: ProviderDefinition) => {
    const read = readerFor(definition)
    return definition.requiredEnv.every((name) => read(name) !== undefined)
  }

  const describe = (definition: ProviderDefinition) =>
    Effect.gen(function* () {
      const configured = isConfigured(definition)
      const request = configured ? definition.modelList?.(readerFor(definition)) : undefined
      const entry = (configured: boolean, models: ReadonlyArray<string>): Provider => ({
        id: definition.id,
        name: definition.name,
        models,
        configured,
        docUrl: definition.docUrl,
        gateway: null,
        envVars: definition.envVars,
      })
      if (request === undefined) return entry(configured, definition.models)
      const listed = yield* served.list(definition.id, request)
      // A server that answers with no model (nothing pulled yet) still gets the suggestions.
      const models = Either.isRight(listed) && listed.right.length > 0 ? listed.right : definition.models
      return entry(request.probe ? Either.isRight(listed) : true, models)
    })

  const providers = Effect.forEach(definitions, describe, { concurrency: "unbounded" }).pipe(
    Effect.withSpan("ModelRegistry.providers"),
  )

  // Set by the owner, not merely defaulted: a local server's default address nobody chose is not.
  const explicitlyConfigured = (definition: ProviderDefinition) =>
    isConfigured(definition) &&
    (definition.requiredEnv.length > 0 || definition.envVars.some((name) => readerFor(definition)(name) !== undefined))

  const defaultOperator = Effect.fn("ModelRegistry.defaultOperator")(function* (selection: ModelSelection) {
    const wanted = byId.get(selection.provider)
    // A default the registry does not have (a registry without `openai`) is no better than an unconfigured one.
    if (wanted !== undefined && isConfigured(wanted)) return selection
    for (const definition of definitions) {
      if (!explicitlyConfigured(definition)) continue
      // Only the providers the owner configured are asked for their models (at most one list each).
      const provider = yield* describe(definition)
      const model = provider.models[0]
      if (provider.configured && model !== undefined) return { provider: provider.id, model }
    }
    return selection
  })

  // Factories are created on first use: most hosts configure one provider, and its SDK is
  // imported only then (the SDKs are ~1 MB of code to parse at every start otherwise).
  const created = new Map<string, Promise<(model: string) => LanguageModel>>()
  const factory = (definition: ProviderDefinition) => {
    let create = created.get(definition.id)
    if (create === undefined) {
      create = definition.load(contextFor(definition)).catch((error: unknown) => {
        created.delete(definition.id)
        throw error
      })
      created.set(definition.id, create)
    }
    return create
  }

  // A model object is stateless (settings + response schemas), but building one is not cheap: the
  // providers compile their zod response schemas per instance, on every request otherwise.
  const models = new Map<string, LanguageModel>()
  const maxCachedModels = 64
  const modelFor = async (definition: ProviderDefinition, modelId: string) => {
    const key = `${definition.id}\u0000${modelId}`
    let model = models.get(key)
    if (model === undefined) {
      model = (await factory(definition))(modelId)
      if (models.size >= maxCachedModels) models.delete(models.keys().next().value!)
      models.set(key, model)
    }
    return model
  }

  const listModels = Effect.fn("ModelRegistry.listModels")(function* (id: string) {
    const provider = yield* configuredProvider(id)
    const request = provider.modelList?.(readerFor(provider))
    if (request === undefined) return undefined
    yield* served.forget(provider.id)
    return yield* served.list(provider.id, { ...request, probe: false })
  })

  const unknown = (id: string) =>
    new UnknownProvider({ provider: id, message: `unknown provider ${id} (known: ${providerIds.join(", ")})` })

  const configuredProvider = Effect.fn("ModelRegistry.provider")(function* (id: string) {
    const provider = byId.get(id)
    if (provider === undefined) return yield* unknown(id)
    const read = readerFor(provider)
    const missing = provider.requiredEnv.filter((name) => read(name) === undefined)
    if (missing.length > 0) {
      return yield* new ModelNotConfigured({
        provider: provider.id,
        envVars: missing,
        message: `provider ${provider.id} is not configured: set ${missing.join(" and ")}`,
      })
    }
    return provider
  })

  const languageModel = Effect.fn("ModelRegistry.languageModel")(function* (selection: ModelSelection) {
    const provider = yield* configuredProvider(selection.provider)
    const model =
      models.get(`${provider.id}\u0000${selection.model}`) ??
      (yield* Effect.promise(() => modelFor(provider, selection.model)))
    const settings: { temperature?: number; maxOutputTokens?: number } = {}
    if (selection.temperature !== undefined) settings.temperature = selection.temperature
    if (selection.maxTokens !== undefined) settings.maxOutputTokens = selection.maxTokens
    return { model, settings } satisfies ResolvedModel
  })

  // Embedding factories, created on first use like the language ones; the models are cheap to make.
  const embedders = new Map<string, Promise<(model: string) => EmbeddingModel>>()
  const embeddingModel = Effect.fn("ModelRegistry.embeddingModel")(function* (selection: {
    readonly provider: string
    readonly model: string
  }) {
    const provider = yield* configuredProvider(selection.provider)
    const load = provider.loadEmbedding
    if (load === undefined) {
      return yield* new EmbeddingsUnsupported({
        provider: provider.id,
        message: `provider ${provider.id} has no embedding models`,
      })
    }
    let create = embedders.get(provider.id)
    if (create === undefined) {
      create = load(contextFor(provider)).catch((error: unknown) => {
        embedders.delete(provider.id)
        throw error
      })
      embedders.set(provider.id, create)
    }
    const factory = yield* Effect.promise(() => create)
    return factory(selection.model)
  })

  const connect = Effect.fn("ModelRegistry.connect")(function* (id: string, connection?: ConnectionValues) {
    if (!byId.has(id)) return yield* unknown(id)
    values.connect(id, connection)
    // Whatever was made with the old values is dropped: the next call loads with the new ones.
    yield* served.forget(id)
    created.delete(id)
    embedders.delete(id)
    for (const key of [...models.keys()]) if (key.startsWith(`${id}\u0000`)) models.delete(key)
  })

  return ModelRegistry.of({
    providerIds,
    providers,
    languageModel,
    defaultOperator,
    embeddingModel,
    connect,
    connectable: (id) => Option.getOrUndefined(Option.map(Option.fromNullable(byId.get(id)), values.connectable)),
    listModels,
  })
}

/**
 * The registry over the host's environment, e.g. `ModelRegistry.layer({ env: process.env })` in
 * a server, or with a provider of your own:
 *
 * @example
 * ModelRegistry.layer({ env: process.env, providers: [...Providers.catalogue, bedrock] })
 */
export const layer = (options: ModelRegistryOptions): Layer.Layer<ModelRegistry> =>
  Layer.scoped(
    ModelRegistry,
    Effect.map(Effect.scope, (scope) => make(options, scope)),
  )

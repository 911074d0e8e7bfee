import { Schema } from "effect"
import { field, optional, section } from "./SchemaFields.js"

/**
 * The `memory` section of the config (issue 11; documented in docs/configuration.md and
 * docs/memory.md). `enabled` is the master switch the reference web UI sends: false turns every
 * kind of memory off. "Memory disabled" in SPEC's memory routes means observational memory is off.
 */

const integerBetween = (min: number, max: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `must be an integer from ${min} to ${max}` }),
    Schema.between(min, max, { message: () => `must be an integer from ${min} to ${max}` }),
  )

const providerSlashModel = /^[^/\s]+\/\S+$/

/** `provider/model`, e.g. `openai/gpt-4.1-mini` (the model id may itself hold slashes). */
export const ProviderSlashModel = Schema.String.pipe(
  Schema.filter(
    (value) =>
      providerSlashModel.test(value) || `${JSON.stringify(value)} is not "provider/model" (e.g. openai/gpt-4.1-mini)`,
  ),
)

/** The observer/reflector model: `"provider/model"` or `{ provider, model }`; unset: the operator's. */
export const MemoryModel = Schema.Union(
  ProviderSlashModel,
  Schema.Struct({
    provider: Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" })),
    model: Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" })),
  }),
).annotations({
  identifier: "MemoryModel",
  message: () => 'must be "provider/model" or an object { provider, model }',
})
export type MemoryModel = typeof MemoryModel.Type

/** The memory model as `{ provider, model }`. */
export const splitModel = (model: MemoryModel): { readonly provider: string; readonly model: string } => {
  if (typeof model !== "string") return model
  const slash = model.indexOf("/")
  return { provider: model.slice(0, slash), model: model.slice(slash + 1) }
}

/** Smallest threshold: small enough to watch memory work in a few turns. */
export const minThreshold = 50

export const ObservationalMemoryConfig = section({
  enabled: field(Schema.Boolean, "Whether observational memory (observer and reflector) is on"),
  scope: field(
    Schema.Literal("resource", "thread").annotations({ message: () => 'must be "resource" or "thread"' }),
    "resource: one memory across every thread (default); thread: one per thread",
  ),
  messageTokens: field(
    integerBetween(minThreshold, 10_000_000),
    "Unobserved message tokens that trigger the observer (default 30000)",
  ),
  observationTokens: field(
    integerBetween(minThreshold, 10_000_000),
    "Observation log tokens that trigger the reflector (default 40000)",
  ),
  dailyTokenBudget: field(
    integerBetween(1_000, 1_000_000_000),
    "Most model tokens memory may spend per day, in the owner's time zone (default 1000000)",
  ),
})

export const SemanticRecallConfig = section({
  enabled: field(Schema.Boolean, "Whether semantic recall is on"),
  embedder: optional(ProviderSlashModel, "`provider/model` of an embedding model; full-text search when absent"),
  topK: field(integerBetween(1, 20), "How many earlier messages are recalled per turn (default 4)"),
  messageRange: field(integerBetween(0, 5), "Neighbours kept before and after each recalled message (default 1)"),
})

export const MemoryConfig = section({
  enabled: field(Schema.Boolean, "Master switch: false turns every kind of memory off"),
  model: optional(MemoryModel, "Observer/reflector model; the operator's model when absent"),
  workingMemory: field(section({ enabled: field(Schema.Boolean, "Whether working memory is on") }), "Working memory"),
  observationalMemory: field(ObservationalMemoryConfig, "Observational memory (observer and reflector)"),
  semanticRecall: field(SemanticRecallConfig, "Semantic recall of earlier messages from other threads"),
})
export type MemoryConfig = typeof MemoryConfig.Type

export const memoryDefaults = {
  enabled: true,
  workingMemory: { enabled: true },
  observationalMemory: {
    enabled: true,
    scope: "resource",
    messageTokens: 30_000,
    observationTokens: 40_000,
    dailyTokenBudget: 1_000_000,
  },
  semanticRecall: { enabled: false, topK: 4, messageRange: 1 },
} as const satisfies typeof MemoryConfig.Encoded

/** Whether each kind is on, the master switch applied. */
export const workingMemoryOn = (memory: MemoryConfig) => memory.enabled && memory.workingMemory.enabled
export const observationalMemoryOn = (memory: MemoryConfig) => memory.enabled && memory.observationalMemory.enabled
export const semanticRecallOn = (memory: MemoryConfig) => memory.enabled && memory.semanticRecall.enabled

/** The provider the memory model names in a stored document, to check against the registry. */
export const storedMemoryProvider = (memory: unknown): string | undefined => {
  if (typeof memory !== "object" || memory === null) return undefined
  const model = (memory as { model?: unknown }).model
  if (typeof model === "string") return providerSlashModel.test(model) ? model.slice(0, model.indexOf("/")) : undefined
  if (typeof model === "object" && model !== null) {
    const provider = (model as { provider?: unknown }).provider
    return typeof provider === "string" && provider !== "" ? provider : undefined
  }
  return undefined
}

/** The provider the recall embedder names in a stored document, to check against the registry. */
export const storedEmbedderProvider = (memory: unknown): string | undefined => {
  if (typeof memory !== "object" || memory === null) return undefined
  const recall = (memory as { semanticRecall?: unknown }).semanticRecall
  if (typeof recall !== "object" || recall === null) return undefined
  const embedder = (recall as { embedder?: unknown }).embedder
  return typeof embedder === "string" && providerSlashModel.test(embedder)
    ? embedder.slice(0, embedder.indexOf("/"))
    : undefined
}

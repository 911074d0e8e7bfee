import { Schema } from "effect"

/**
 * The provider exists but its environment variables are unset on the host; `message` names
 * them ("provider openai is not configured: set OPENAI_API_KEY").
 */
export class ModelNotConfigured extends Schema.TaggedError<ModelNotConfigured>()("ModelNotConfigured", {
  provider: Schema.String,
  envVars: Schema.Array(Schema.String),
  message: Schema.String,
}) {}

/** A provider id that is not in the catalogue. */
export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  provider: Schema.String,
  message: Schema.String,
}) {}

/** A provider without embedding models (e.g. Anthropic): `memory.semanticRecall.embedder` cannot name it. */
export class EmbeddingsUnsupported extends Schema.TaggedError<EmbeddingsUnsupported>()("EmbeddingsUnsupported", {
  provider: Schema.String,
  message: Schema.String,
}) {}

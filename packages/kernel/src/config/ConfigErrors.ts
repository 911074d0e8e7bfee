import { Schema } from "effect"

/**
 * A config patch was refused: the document it would produce is invalid. `problems` lists
 * every problem as `path: reason` (`models.operator.temperature: must be a number between 0
 * and 2`); nothing was stored.
 */
export class ConfigValidationError extends Schema.TaggedError<ConfigValidationError>()("ConfigValidationError", {
  problems: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return this.problems.join("; ")
  }
}

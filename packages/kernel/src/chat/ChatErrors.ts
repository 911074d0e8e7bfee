import { Schema } from "effect"

/** A response is already streaming in this thread: one at a time. */
export class ChatBusy extends Schema.TaggedError<ChatBusy>()("ChatBusy", { threadId: Schema.String }) {}

/**
 * The model could not be reached or refused before anything was streamed. `message` is the
 * provider's. `notConfigured`: the operator model's provider is unknown or lacks its environment
 * variables (`message` names them): the host's setup, not a provider failure (HTTP answers 409).
 */
export class ChatModelError extends Schema.TaggedError<ChatModelError>()("ChatModelError", {
  message: Schema.String,
  notConfigured: Schema.optional(Schema.Boolean),
}) {}

/**
 * An attachment no model takes (`application/x-msdownload`), or one the configured model refused
 * (`video/mp4` to a model that takes only images). `message` names the type.
 */
export class UnsupportedAttachment extends Schema.TaggedError<UnsupportedAttachment>()("UnsupportedAttachment", {
  message: Schema.String,
}) {}

/** The request cannot be answered as sent (e.g. no text part). */
export class InvalidChatRequest extends Schema.TaggedError<InvalidChatRequest>()("InvalidChatRequest", {
  message: Schema.String,
}) {}

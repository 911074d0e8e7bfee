import { Schema } from "effect"
import { dataUrlProblem } from "./DataUrl.js"

/** SPEC "Request content part": what a client sends in `POST /api/chat`. */
export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
})

// Checked in full on the way in: a malformed data URL stored with a message would otherwise fail
// at the provider, for this message and every later one of its thread.
const dataUrl = Schema.String.pipe(
  Schema.filter((url) => {
    const problem = dataUrlProblem(url)
    return problem === undefined || `file url ${problem}: it must be a data URL (data:<media type>;base64,<data>)`
  }),
)

export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  mediaType: Schema.String.pipe(
    Schema.pattern(/^[\w.+-]+\/[\w.+-]+$/, { message: () => "file mediaType must be a media type such as image/png" }),
  ),
  url: dataUrl,
  filename: Schema.optional(Schema.String),
})

export const ChatPart = Schema.Union(TextPart, FilePart).annotations({ identifier: "ChatPart" })
export type ChatPart = typeof ChatPart.Type

/** Metadata of every assistant message: where it came from, so clients can resume or approve. */
export interface AssistantMetadata {
  readonly runId: string
  readonly threadId: string
}

const runRequired = "runId and threadId are required"

/** A required, non-empty id of the approve body: missing, empty or not a string, the one message. */
const runRef = (description: string) =>
  Schema.propertySignature(
    Schema.String.pipe(Schema.minLength(1)).annotations({ message: () => ({ message: runRequired, override: true }) }),
  ).annotations({ description, missingMessage: () => runRequired })

const optionalString = (name: string, description: string) =>
  Schema.optionalWith(Schema.String.annotations({ message: () => `${name} must be a string` }), {
    exact: true,
  }).annotations({ description })

/**
 * `POST /api/chat/approve`: the owner's decision on a paused run. Problems are checked in field
 * order, the first one answered (`runId and threadId are required`, `toolCallId must be a
 * string`, `approved must be true or false`); unknown fields are ignored.
 */
export const ApproveRequest = Schema.Struct({
  runId: runRef("The suspended run: `messageMetadata.runId` of its stream (or X-Run-Id)"),
  threadId: runRef("The run's thread"),
  toolCallId: optionalString("toolCallId", "One call of the run; every undecided call when omitted"),
  messageId: optionalString("messageId", "The assistant message holding the call; checked when given"),
  approved: Schema.propertySignature(
    Schema.Boolean.annotations({ message: () => "approved must be true or false" }),
  ).annotations({
    description: "true runs the call(s), false denies them (the model is told)",
    missingMessage: () => "approved must be true or false",
  }),
  // A body that is not an object has no runId or threadId either.
}).annotations({ identifier: "ApproveRequest", message: () => runRequired })
export type ApproveRequest = typeof ApproveRequest.Type

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

import { ChatModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, InternalError, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

const partsRequired = "parts must be a non-empty array"

export const ChatBody = Schema.Struct({
  // A missing key's message is read from the property signature, not from the value's schema.
  parts: Schema.propertySignature(
    Schema.Array(ChatModel.ChatPart)
      .annotations({ message: () => partsRequired })
      .pipe(Schema.minItems(1, { message: () => partsRequired })),
  ).annotations({ missingMessage: () => partsRequired }),
  // At most 100: the router matches no path parameter longer than that (find-my-way's
  // maxParamLength), so a longer id would make a thread no /api/threads/:id route can reach.
  threadId: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[\w.:-]{1,100}$/, {
        message: () => "threadId must be 1-100 letters, digits, '-', '_', '.' or ':'",
      }),
    ),
  ),
}).annotations({ identifier: "ChatBody", message: () => "request body must be a JSON object" })

/**
 * Loose on purpose: the handler checks the fields itself, so a missing `runId` or `threadId`
 * answers SPEC's exact message instead of a schema decoding error.
 */
export const ApproveBody = Schema.Struct({
  runId: Schema.optional(Schema.Unknown).annotations({ description: "string, required: the suspended run" }),
  threadId: Schema.optional(Schema.Unknown).annotations({ description: "string, required: the run's thread" }),
  toolCallId: Schema.optional(Schema.Unknown).annotations({
    description: "string: one call of the run; every undecided call when omitted",
  }),
  approved: Schema.optional(Schema.Unknown).annotations({ description: "boolean, required: true runs, false denies" }),
  messageId: Schema.optional(Schema.Unknown).annotations({ description: "string: the message holding the call" }),
  // A body that is not an object has no runId or threadId either.
}).annotations({ identifier: "ApproveBody", message: () => "runId and threadId are required" })

/** An SSE stream of the AI SDK UI message stream protocol, each event with an `id:`. */
export const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
  description: "Server-Sent Events: `id: <n>` + `data: <UI message chunk JSON>`, ending with `data: [DONE]`",
})

const ThreadIdPath = Schema.Struct({ threadId: Schema.String })

/** SPEC "Chat": send, approve, reconnect, stop. Streams are SSE; the thread id is in `X-Thread-Id`. */
export class ChatApi extends HttpApiGroup.make("chat")
  .add(
    HttpApiEndpoint.post("send", "/api/chat")
      .setPayload(ChatBody)
      .addSuccess(EventStream)
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .addError(InternalError.Wire),
  )
  .add(
    HttpApiEndpoint.post("approve", "/api/chat/approve")
      .setPayload(ApproveBody)
      .addSuccess(EventStream)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(InternalError.Wire),
  )
  .add(
    HttpApiEndpoint.get("resume", "/api/chat/:threadId/stream")
      .setPath(ThreadIdPath)
      .addSuccess(EventStream)
      .addSuccess(HttpApiSchema.NoContent.annotations({ description: "No stream to resume" })),
  )
  .add(
    HttpApiEndpoint.post("stop", "/api/chat/:threadId/stop")
      .setPath(ThreadIdPath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), stopped: Schema.Boolean })),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Chat with the assistant (SSE streams)") {}

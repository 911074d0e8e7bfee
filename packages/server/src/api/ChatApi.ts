import { ChatModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  BadRequest,
  Conflict,
  InternalError,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
  UnsupportedMediaType,
} from "./ApiErrors.js"
import { type HeaderDoc, responseHeaders } from "./OpenApiHeaders.js"
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
  // The user message's id, so clients that name their messages (useChat) find them in the history.
  messageId: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[\w.:-]{1,100}$/, {
        message: () => "messageId must be 1-100 letters, digits, '-', '_', '.' or ':'",
      }),
    ),
  ),
}).annotations({ identifier: "ChatBody", message: () => "request body must be a JSON object" })

/** An SSE stream of the AI SDK UI message stream protocol, each event with an `id:`. */
export const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
  description: "Server-Sent Events: `id: <n>` + `data: <UI message chunk JSON>`, ending with `data: [DONE]`",
})

const ThreadIdPath = Schema.Struct({ threadId: Schema.String })

const threadIdHeader: HeaderDoc = { description: "The thread of the stream (new threads get a UUID)", required: true }
const runIdHeader: HeaderDoc = {
  description: "The run streaming: the `runId` of POST /api/chat/approve for its tool calls",
  required: true,
}

const retryAfterHeader: HeaderDoc = {
  description: "Seconds to wait before retrying",
  required: true,
  schema: { type: "integer", minimum: 0 },
}

/** The SSE `id:` of the last event the client received; the stream resumes after it. */
export const ResumeHeaders = Schema.Struct({
  "last-event-id": Schema.optional(
    Schema.String.annotations({
      description: "Last SSE event id received (sent by EventSource on reconnect); the stream resumes after it",
    }),
  ),
})

/** SPEC "Chat": send, approve, reconnect, stop. Streams are SSE; the thread id is in `X-Thread-Id`. */
export class ChatApi extends HttpApiGroup.make("chat")
  .add(
    HttpApiEndpoint.post("send", "/api/chat")
      .annotate(OpenApi.Summary, "Send a message and stream the answer (SSE)")
      // SPEC: X-Thread-Id is always present, errors included, except when the request is
      // rejected before it names a thread (a body that does not decode).
      .annotate(
        OpenApi.Transform,
        responseHeaders(
          ["all", { "X-Thread-Id": { ...threadIdHeader, required: false } }],
          [200, { "X-Thread-Id": threadIdHeader, "X-Run-Id": runIdHeader }],
        ),
      )
      .setPayload(ChatBody)
      .addSuccess(EventStream)
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .addError(UnsupportedMediaType.Wire)
      .addError(InternalError.Wire),
  )
  .add(
    HttpApiEndpoint.post("approve", "/api/chat/approve")
      .annotate(OpenApi.Summary, "Approve or deny a run's tool calls and stream the continuation (SSE)")
      .annotate(OpenApi.Transform, responseHeaders([200, { "X-Thread-Id": threadIdHeader, "X-Run-Id": runIdHeader }]))
      .setPayload(ChatModel.ApproveRequest)
      .addSuccess(EventStream)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(UnsupportedMediaType.Wire)
      .addError(InternalError.Wire),
  )
  .add(
    HttpApiEndpoint.get("resume", "/api/chat/:threadId/stream")
      .annotate(OpenApi.Summary, "Reconnect to a thread's running stream (SSE), or 204")
      .annotate(
        OpenApi.Transform,
        responseHeaders([200, { "X-Thread-Id": threadIdHeader }], [503, { "Retry-After": retryAfterHeader }]),
      )
      .setPath(ThreadIdPath)
      .setHeaders(ResumeHeaders)
      .addSuccess(EventStream)
      .addSuccess(
        HttpApiSchema.NoContent.annotations({
          description: "No stream to resume: none running (a finished one only with Last-Event-ID)",
        }),
      )
      // Subscriber caps (docs/chat.md): per stream, and over the whole server.
      .addError(TooManyRequests.Wire)
      .addError(ServiceUnavailable.Wire),
  )
  .add(
    HttpApiEndpoint.post("stop", "/api/chat/:threadId/stop")
      .annotate(OpenApi.Summary, "Stop a thread's running answer")
      .setPath(ThreadIdPath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), stopped: Schema.Boolean })),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Chat with the assistant (SSE streams)") {}

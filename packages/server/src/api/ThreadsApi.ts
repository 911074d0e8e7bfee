import { Threads } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/** Page size of GET /api/threads when `perPage` is not given. */
export const defaultPerPage = 50

/** A query parameter that must match `pattern`, with one message for anything else. */
const queryParam = (pattern: RegExp, message: string, description: string) =>
  Schema.String.pipe(Schema.pattern(pattern)).annotations({ message: () => ({ message, override: true }), description })

/**
 * `?page=0` (the first page), `?perPage=20` or `?perPage=false` (everything). On the wire they
 * are strings like every query parameter; the document types them by the values they carry
 * (the `jsonSchema` annotation), so generated clients take numbers, not strings.
 */
export const ThreadListParams = Schema.Struct({
  page: Schema.optional(
    Schema.compose(
      queryParam(/^(0|[1-9][0-9]{0,8})$/, "page must be a non-negative integer", "Page index, 0-based; default 0"),
      Schema.NumberFromString,
    ).annotations({
      jsonSchema: { type: "integer", minimum: 0, maximum: 999_999_999, description: "Page index, 0-based; default 0" },
    }),
  ),
  perPage: Schema.optional(
    Schema.transform(
      queryParam(
        /^(false|[1-9][0-9]{0,8})$/,
        "perPage must be a positive integer or false",
        `Page size; default ${defaultPerPage}; \`false\` for every root thread`,
      ),
      Schema.Union(Schema.Literal(false), Schema.Int),
      {
        strict: true,
        decode: (value) => (value === "false" ? false : Number(value)),
        encode: (value) => String(value),
      },
    ).annotations({
      jsonSchema: {
        anyOf: [
          { type: "integer", minimum: 1, maximum: 999_999_999 },
          { type: "boolean", enum: [false] },
        ],
        description: `Page size; default ${defaultPerPage}; \`false\` for every root thread`,
      },
    }),
  ),
})

export const ThreadList = Schema.Struct({
  threads: Schema.Array(Threads.ThreadSummary),
  total: Schema.Int,
  page: Schema.Int,
  perPage: Schema.Union(Schema.Int, Schema.Literal(false)),
  hasMore: Schema.Boolean,
  activeStreamIds: Schema.Array(Schema.String),
}).annotations({ identifier: "ThreadList" })

export const ThreadInfo = Schema.Struct({
  id: Schema.String,
  title: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
}).annotations({ identifier: "Thread" })

/** SPEC: `400 messageId is required` when messageId is missing or not a string, whatever else is wrong. */
export const ForkBody = Schema.Struct({ messageId: Schema.String }).annotations({
  identifier: "ForkBody",
  message: () => ({ message: "messageId is required", override: true }),
})

export const ForkResult = Schema.Struct({
  thread: Schema.Struct({ id: Schema.String, createdAt: Schema.Date, updatedAt: Schema.Date }),
  clonedMessageCount: Schema.Int,
}).annotations({ identifier: "ForkResult" })

export const RenameBody = Schema.Struct({
  title: Schema.NullOr(Schema.String).annotations({
    message: () => ({ message: "title must be a string or null", override: true }),
    missingMessage: "title is required",
  }),
}).annotations({ identifier: "RenameBody", message: () => "request body must be a JSON object" })

const ThreadPath = Schema.Struct({ id: Schema.String })

/** Conversation threads and their branches (Bearer token). */
export class ThreadsApi extends HttpApiGroup.make("threads")
  .add(
    HttpApiEndpoint.get("list", "/api/threads")
      .annotate(OpenApi.Summary, "List root threads, newest first, one page at a time")
      .setUrlParams(ThreadListParams)
      .addSuccess(ThreadList)
      .addError(BadRequest.Wire),
  )
  .add(
    HttpApiEndpoint.get("detail", "/api/threads/:id")
      .annotate(OpenApi.Summary, "Read a thread with its messages and branches")
      .setPath(ThreadPath)
      .addSuccess(Threads.ThreadDetail)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.post("fork", "/api/threads/:id/fork")
      .annotate(OpenApi.Summary, "Fork a thread before a message into a new branch")
      .setPath(ThreadPath)
      .setPayload(ForkBody)
      .addSuccess(ForkResult)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.patch("rename", "/api/threads/:id")
      .annotate(OpenApi.Summary, "Rename a thread (null clears the title)")
      .setPath(ThreadPath)
      .setPayload(RenameBody)
      .addSuccess(ThreadInfo)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/threads/:id")
      .annotate(OpenApi.Summary, "Delete a thread and its messages")
      .setPath(ThreadPath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Conversation threads: list, read, fork, rename, delete (Bearer token)") {}

import { Inbox } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/** `?archived=true` lists archived messages, `false` (the default) active ones. */
export const InboxListParams = Schema.Struct({
  archived: Schema.optional(
    Schema.transform(
      Schema.Literal("true", "false").annotations({
        message: () => ({ message: "archived must be true or false", override: true }),
        description: "`true` lists archived messages; default `false` (active messages)",
      }),
      Schema.Boolean,
      { strict: true, decode: (value) => value === "true", encode: (value) => (value ? "true" : "false") },
      // Documented as the boolean it carries: generated clients send `archived: true` as `true`.
    ).annotations({
      jsonSchema: { type: "boolean", description: "`true` lists archived messages; default `false` (active messages)" },
    }),
  ),
})

const flag = (name: string, description: string) =>
  Schema.optional(
    Schema.Boolean.annotations({
      message: () => ({ message: `${name} must be a boolean`, override: true }),
      description,
    }),
  )

/** Both fields optional; `{}` changes nothing and answers the message. */
export const InboxPatchBody = Schema.Struct({
  read: flag("read", "Marks the message read or unread"),
  archived: flag("archived", "true archives (sets archivedAt), false unarchives (clears it)"),
}).annotations({ identifier: "InboxPatch", message: () => "request body must be a JSON object" })

export const InboxList = Schema.Struct({ messages: Schema.Array(Inbox.InboxMessage) }).annotations({
  identifier: "InboxList",
})

const MessagePath = Schema.Struct({ id: Schema.String })

/** The owner's inbox (Bearer token). */
export class InboxApi extends HttpApiGroup.make("inbox")
  .add(
    HttpApiEndpoint.get("list", "/api/inbox")
      .annotate(OpenApi.Summary, "List inbox messages, active or archived")
      .setUrlParams(InboxListParams)
      .addSuccess(InboxList)
      .addError(BadRequest.Wire),
  )
  .add(
    HttpApiEndpoint.get("get", "/api/inbox/:id")
      .annotate(OpenApi.Summary, "Read an inbox message")
      .setPath(MessagePath)
      .addSuccess(Inbox.InboxMessage)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/inbox/:id")
      .annotate(OpenApi.Summary, "Mark an inbox message read, unread, archived or active")
      .setPath(MessagePath)
      .setPayload(InboxPatchBody)
      .addSuccess(Inbox.InboxMessage)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/inbox/:id")
      .annotate(OpenApi.Summary, "Delete an inbox message")
      .setPath(MessagePath)
      .addSuccess(Schema.Struct({ deleted: Schema.String }))
      .addError(NotFound.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Inbox: messages from scheduled tasks and the agent (Bearer token)") {}

export const DestinationList = Schema.Struct({ destinations: Schema.Array(Schema.String) }).annotations({
  identifier: "DestinationList",
})

/**
 * Where scheduled results can go (Bearer token). A group of its own: the rest of
 * /api/schedule belongs to the scheduler.
 */
export class ScheduleDestinationsApi extends HttpApiGroup.make("scheduleDestinations")
  .add(
    HttpApiEndpoint.get("list", "/api/schedule/destinations")
      .addSuccess(DestinationList)
      .annotate(OpenApi.Summary, "List destinations for scheduled results"),
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Destinations for scheduled tasks and the heartbeat: `Web Inbox` and channels that notify (Bearer token)",
  ) {}

import { Inbox } from "@aide/kernel"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { NotFound } from "../api/ApiErrors.js"
import type { InboxList } from "../api/InboxApi.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/**
 * `InboxList` encoded by hand, to the JSON its schema gives (dates as ISO strings, the same
 * fields; the type keeps it in step with the schema): the list has no paging (SPEC), so a year's
 * inbox answers thousands of messages, and the schema's encoder (a parse per field) was most of
 * the CPU a message cost.
 */
const encodeInboxList = (messages: ReadonlyArray<Inbox.InboxMessage>): typeof InboxList.Encoded => ({
  messages: messages.map((message) => ({
    id: message.id,
    subject: message.subject,
    body: message.body,
    threadId: message.threadId,
    destination: message.destination,
    status: message.status,
    read: message.read,
    createdAt: message.createdAt.toISOString(),
    archivedAt: message.archivedAt === null ? null : message.archivedAt.toISOString(),
  })),
})

const messageNotFound = () => new NotFound({ error: "Message not found" })

export const layer = HttpApiBuilder.group(AideApi, "inbox", (handlers) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox.Inbox
    return handlers
      .handleRaw("list", ({ urlParams }) =>
        inbox.list({ archived: urlParams.archived ?? false }).pipe(
          Effect.map((messages) => HttpServerResponse.unsafeJson(encodeInboxList(messages))),
          dieOnStorageError,
        ),
      )
      .handle("get", ({ path }) =>
        inbox.get(path.id).pipe(Effect.catchTag("InboxMessageNotFound", messageNotFound), dieOnStorageError),
      )
      .handle("update", ({ path, payload }) =>
        inbox
          .update(path.id, payload)
          .pipe(Effect.catchTag("InboxMessageNotFound", messageNotFound), dieOnStorageError),
      )
      .handle("delete", ({ path }) =>
        inbox
          .delete(path.id)
          .pipe(
            Effect.as({ deleted: path.id }),
            Effect.catchTag("InboxMessageNotFound", messageNotFound),
            dieOnStorageError,
          ),
      )
  }),
)

export const destinationsLayer = HttpApiBuilder.group(AideApi, "scheduleDestinations", (handlers) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox.Inbox
    return handlers.handle("list", () => Effect.map(inbox.destinations, (destinations) => ({ destinations })))
  }),
)

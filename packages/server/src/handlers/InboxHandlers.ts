import { Inbox } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

const messageNotFound = () => new NotFound({ error: "Message not found" })

export const layer = HttpApiBuilder.group(AideApi, "inbox", (handlers) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox.Inbox
    return handlers
      .handle("list", ({ urlParams }) =>
        inbox.list({ archived: urlParams.archived ?? false }).pipe(
          Effect.map((messages) => ({ messages })),
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

import { WebPush } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict, NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

export const layer = HttpApiBuilder.group(AideApi, "push", (handlers) =>
  Effect.gen(function* () {
    const push = yield* WebPush.WebPush
    return handlers
      .handle("vapidPublicKey", () =>
        push.publicKey.pipe(
          Effect.map((publicKey) => ({ publicKey })),
          dieOnStorageError,
        ),
      )
      .handle("subscribe", ({ payload }) =>
        push.subscribe(payload).pipe(
          Effect.as({ subscribed: true as const }),
          Effect.catchTags({
            PushSubscriptionInvalid: (error) => Effect.fail(new BadRequest({ error: error.message })),
            PushSubscriptionsFull: (error) => Effect.fail(new Conflict({ error: error.message })),
          }),
          dieOnStorageError,
        ),
      )
      .handle("unsubscribe", ({ payload }) =>
        push.unsubscribe(payload.endpoint).pipe(
          Effect.flatMap((removed) =>
            removed
              ? Effect.succeed({ unsubscribed: true as const })
              : Effect.fail(new NotFound({ error: "No subscription has that endpoint" })),
          ),
          dieOnStorageError,
        ),
      )
  }),
)

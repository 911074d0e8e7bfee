import { Scheduler } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

const taskNotFound = () => new NotFound({ error: "Task not found" })
const invalid = (error: { readonly message: string }) => new BadRequest({ error: error.message })

export const layer = HttpApiBuilder.group(AideApi, "schedule", (handlers) =>
  Effect.gen(function* () {
    const scheduler = yield* Scheduler.Scheduler
    return handlers
      .handle("list", () => dieOnStorageError(scheduler.list))
      .handle("create", ({ payload }) =>
        scheduler.create(payload).pipe(Effect.catchTag("InvalidSchedule", invalid), dieOnStorageError),
      )
      .handle("get", ({ path }) =>
        scheduler.get(path.id).pipe(Effect.catchTag("TaskNotFound", taskNotFound), dieOnStorageError),
      )
      .handle("update", ({ path, payload }) =>
        scheduler
          .update(path.id, payload)
          .pipe(Effect.catchTags({ TaskNotFound: taskNotFound, InvalidSchedule: invalid }), dieOnStorageError),
      )
      .handle("delete", ({ path }) =>
        scheduler
          .delete(path.id)
          .pipe(Effect.as({ deleted: path.id }), Effect.catchTag("TaskNotFound", taskNotFound), dieOnStorageError),
      )
      .handle("heartbeat", () => dieOnStorageError(scheduler.heartbeat))
      .handle("updateHeartbeat", ({ payload }) =>
        scheduler.updateHeartbeat(payload).pipe(Effect.catchTag("InvalidSchedule", invalid), dieOnStorageError),
      )
  }),
)

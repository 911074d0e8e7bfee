import { type ScheduleModel, Scheduler } from "@aide/kernel"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** Every field of `A`; an optional one may be undefined, which `JSON.stringify` leaves out. */
type EveryField<A> = { readonly [K in keyof A]-?: {} extends Pick<A, K> ? A[K] | undefined : A[K] }

/**
 * `ScheduleList` encoded by hand, to the JSON its schema gives (the schema's fields only, in its
 * order, an absent optional field left out, `nextRun` as an ISO string; the type keeps it in step
 * with the schema): the list has no paging (SPEC), and the schema's encoder (a parse per field)
 * was most of the CPU a task cost.
 */
const encodeScheduleList = (
  list: ScheduleModel.ScheduleList,
): {
  readonly enabled: boolean
  readonly tasks: ReadonlyArray<EveryField<typeof ScheduleModel.ScheduledTask.Encoded>>
} => ({
  enabled: list.enabled,
  tasks: list.tasks.map((task) => ({
    id: task.id,
    name: task.name,
    cron: task.cron,
    runAt: task.runAt,
    prompt: task.prompt,
    enabled: task.enabled,
    timezone: task.timezone,
    maxRuns: task.maxRuns,
    destination: task.destination,
    nextRun: task.nextRun === null ? null : task.nextRun.toISOString(),
    isRunning: task.isRunning,
  })),
})

const taskNotFound = () => new NotFound({ error: "Task not found" })
const invalid = (error: { readonly message: string }) => new BadRequest({ error: error.message })

export const layer = HttpApiBuilder.group(AideApi, "schedule", (handlers) =>
  Effect.gen(function* () {
    const scheduler = yield* Scheduler.Scheduler
    return handlers
      .handleRaw("list", () =>
        scheduler.list.pipe(
          Effect.map((list) => HttpServerResponse.unsafeJson(encodeScheduleList(list))),
          dieOnStorageError,
        ),
      )
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

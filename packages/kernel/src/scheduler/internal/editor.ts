import { Clock, Effect, Either, FiberMap } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { Ids } from "../../ids/Ids.js"
import { Inbox } from "../../inbox/Inbox.js"
import { heartbeatActive, heartbeatOf, movedCursor, taskEntry } from "../DueTimes.js"
import { heartbeatTaskId, InvalidSchedule, TaskNotFound } from "../ScheduleModel.js"
import type { Scheduler } from "../Scheduler.js"
import { createTask, patchHeartbeat, patchTask } from "../TaskEdits.js"
import type { RuntimeState } from "./runtimeState.js"
import { heartbeatView, taskView } from "./views.js"

const invalid = (message: string) => new InvalidSchedule({ message })

const fromEither = <A>(either: Either.Either<A, string>) => Either.mapLeft(either, invalid)

const checkRunAt = (runAt: string | undefined, now: number) =>
  runAt !== undefined && Date.parse(runAt) <= now
    ? Effect.fail(invalid(`runAt must be in the future (it is ${runAt}, now is ${new Date(now).toISOString()})`))
    : Effect.void

/** The config document's own verdict on the edited document, as the owner-facing `InvalidSchedule`. */
const configProblems = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is Extract<E, { readonly _tag: "ConfigValidationError" }> =>
      (error as { readonly _tag?: unknown })._tag === "ConfigValidationError",
    (error) =>
      Effect.fail(invalid((error as unknown as { readonly problems: ReadonlyArray<string> }).problems.join("; "))),
  )

/**
 * The scheduler's API: tasks and heartbeat settings are edited in the config document, and the
 * runtime state follows at once (a new task starts counting, a changed schedule owes nothing from
 * before), so an answer's `nextRun` is right before the loop next wakes, or with the loop off.
 */
export const make = (state: RuntimeState): Effect.Effect<Scheduler["Type"], never, AppConfig | Inbox | Ids> =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const inbox = yield* Inbox
    const ids = yield* Ids

    const checkDestination = (label: string | null | undefined) =>
      label === undefined || label === null
        ? Effect.void
        : Effect.flatMap(inbox.destinations, (known) =>
            known.includes(label)
              ? Effect.void
              : Effect.fail(invalid(`unknown destination ${JSON.stringify(label)} (available: ${known.join(", ")})`)),
          )

    const snapshot = Effect.gen(function* () {
      const config = yield* appConfig.get
      const now = yield* Clock.currentTimeMillis
      return { config, now, running: yield* state.runningIds(now) }
    })

    const list = Effect.map(snapshot, (at) => ({
      enabled: at.config.schedule.enabled,
      tasks: at.config.schedule.tasks.map((task) => taskView(state, at, task)),
    }))

    const get = (id: string) =>
      Effect.flatMap(snapshot, (at) => {
        const task = at.config.schedule.tasks.find((candidate) => candidate.id === id)
        return task === undefined
          ? Effect.fail(new TaskNotFound({ taskId: id }))
          : Effect.succeed(taskView(state, at, task))
      }).pipe(Effect.withSpan("Scheduler.get"))

    const create = Effect.fn("Scheduler.create")(function* (input: unknown) {
      const id = yield* ids.uuid
      const now = yield* Clock.currentTimeMillis
      const task = yield* fromEither(createTask(id, input))
      yield* checkRunAt(task.runAt, now)
      yield* checkDestination(task.destination)
      yield* configProblems(
        appConfig.modify((config) => Effect.succeed({ schedule: { tasks: [...config.schedule.tasks, task] } })),
      )
      // Counting starts now, even before the loop first sees the task (or with the loop off).
      yield* state.track(taskEntry(yield* appConfig.get, task), now)
      return yield* get(id).pipe(Effect.catchTag("TaskNotFound", Effect.die))
    })

    const update = Effect.fn("Scheduler.update")(function* (id: string, patch: unknown) {
      const now = yield* Clock.currentTimeMillis
      const before = yield* appConfig.get
      const after = yield* configProblems(
        appConfig.modify((config) =>
          Effect.gen(function* () {
            const current = config.schedule.tasks.find((task) => task.id === id)
            if (current === undefined) return yield* new TaskNotFound({ taskId: id })
            const next = yield* fromEither(patchTask(current, patch))
            if (next.runAt !== current.runAt) yield* checkRunAt(next.runAt, now)
            if (next.destination !== current.destination) yield* checkDestination(next.destination)
            return { schedule: { tasks: config.schedule.tasks.map((task) => (task.id === id ? next : task)) } }
          }),
        ),
      )
      // Now rather than when the loop next wakes, so the answer's nextRun is already right.
      const old = before.schedule.tasks.find((task) => task.id === id)
      const task = after.schedule.tasks.find((candidate) => candidate.id === id)
      const cursor = old && task ? movedCursor(before, old, after, task, now) : undefined
      if (cursor !== undefined) yield* state.setCursor(id, cursor)
      return yield* get(id)
    })

    const delete_ = Effect.fn("Scheduler.delete")(function* (id: string) {
      const config = yield* appConfig.get
      if (!config.schedule.tasks.some((task) => task.id === id)) return yield* new TaskNotFound({ taskId: id })
      yield* FiberMap.remove(state.fibers, id)
      yield* appConfig
        .modify((current) =>
          current.schedule.tasks.some((task) => task.id === id)
            ? Effect.succeed({ schedule: { tasks: current.schedule.tasks.filter((task) => task.id !== id) } })
            : Effect.fail(new TaskNotFound({ taskId: id })),
        )
        .pipe(Effect.catchTag("ConfigValidationError", Effect.die))
    })

    const heartbeat = Effect.map(snapshot, (at) => heartbeatView(state, at))

    const updateHeartbeat = Effect.fn("Scheduler.updateHeartbeat")(function* (patch: unknown) {
      const items = (patch as { readonly tasks?: unknown } | null)?.tasks
      const missing = Array.isArray(items) ? items.filter((item) => item?.id === undefined).length : 0
      const fresh = yield* Effect.all(Array.from({ length: missing }, () => ids.uuid))
      const before = yield* appConfig.get
      const after = yield* configProblems(
        appConfig.modify((config) =>
          Effect.gen(function* () {
            const current = config.schedule.heartbeat ?? {}
            const next = yield* fromEither(patchHeartbeat(current, patch, () => fresh.shift()!))
            if (next.destination !== current.destination) yield* checkDestination(next.destination)
            // A merge patch: keys the new value lacks are deleted with null.
            const body: Record<string, unknown> = { ...next }
            for (const key of Object.keys(current)) if (!Object.hasOwn(next, key)) body[key] = null
            return { schedule: { heartbeat: body } }
          }),
        ),
      )
      if (
        heartbeatActive(after) &&
        (!heartbeatActive(before) || heartbeatOf(before).cron !== heartbeatOf(after).cron)
      ) {
        yield* state.setCursor(heartbeatTaskId, yield* Clock.currentTimeMillis)
      }
      return yield* heartbeat
    })

    return { list, get, create, update, delete: delete_, heartbeat, updateHeartbeat }
  })

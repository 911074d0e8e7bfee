import { Either, type ParseResult, Schema } from "effect"
import {
  type HeartbeatConfig,
  HeartbeatConfig as HeartbeatSchema,
  ScheduledTaskConfig,
} from "../config/ScheduleConfig.js"
import { describeParseError } from "../validation/Problems.js"
import {
  bothScheduled,
  HeartbeatPatch,
  heartbeatFields,
  TaskInput,
  TaskPatch,
  taskFields,
  unscheduled,
} from "./ScheduleModel.js"

/**
 * Turning API bodies into the stored task and heartbeat: pure, so the rules of SPEC "Schedule"
 * (null clears, cron and runAt exclude each other, read-only fields ignored) read in one place.
 * A body is first decoded with its schema (`TaskInput`, `TaskPatch`, `HeartbeatPatch`: the ones
 * the HTTP contract decodes, so both word a problem alike), then combined with what is stored.
 * Each function answers the new value or the owner-facing message of the first problems.
 */

const describe = (error: ParseResult.ParseError, root?: string) => describeParseError(error, root).join("; ")

const decodeInput = Schema.decodeUnknownEither(TaskInput)
const decodePatch = Schema.decodeUnknownEither(TaskPatch)
const decodeHeartbeatPatch = Schema.decodeUnknownEither(HeartbeatPatch)
const decodeTask = Schema.decodeUnknownEither(ScheduledTaskConfig, { errors: "all", onExcessProperty: "error" })
const decodeHeartbeat = Schema.decodeUnknownEither(HeartbeatSchema, { errors: "all", onExcessProperty: "error" })

const finishTask = (candidate: Record<string, unknown>) =>
  Either.mapLeft(decodeTask(candidate), (error) => describe(error, "task"))

/** POST /api/schedule: the stored task with the given id; `null` counts as absent. */
export const createTask = (id: string, body: unknown): Either.Either<ScheduledTaskConfig, string> =>
  Either.flatMap(Either.mapLeft(decodeInput(body), describe), (input) => {
    const problem = unscheduled(input)
    if (problem !== undefined) return Either.left(problem)
    const candidate: Record<string, unknown> = { id }
    for (const key of taskFields) if (input[key] !== undefined && input[key] !== null) candidate[key] = input[key]
    return finishTask(candidate)
  })

/**
 * PATCH /api/schedule/:id: `null` clears an optional field; a `cron` clears `runAt` and a
 * `runAt` clears `cron` (and `maxRuns`, which only recurring tasks have).
 */
export const patchTask = (current: ScheduledTaskConfig, body: unknown): Either.Either<ScheduledTaskConfig, string> =>
  Either.flatMap(Either.mapLeft(decodePatch(body), describe), (input) => {
    const candidate: Record<string, unknown> = { ...current }
    const both = bothScheduled(input)
    if (both !== undefined) return Either.left(both)
    const setsCron = input.cron !== undefined && input.cron !== null
    const setsRunAt = input.runAt !== undefined && input.runAt !== null
    for (const key of taskFields) {
      if (!Object.hasOwn(input, key)) continue
      // Only optional fields can be null: the schema refuses a null name or prompt.
      if (input[key] === null) delete candidate[key]
      else candidate[key] = input[key]
    }
    if (setsCron) delete candidate.runAt
    if (setsRunAt) {
      delete candidate.cron
      delete candidate.maxRuns
    }
    if (candidate.cron === undefined && candidate.runAt === undefined) {
      return Either.left("a task needs a cron or a runAt: set the other one when clearing one")
    }
    return finishTask(candidate)
  })

/**
 * PATCH /api/schedule/heartbeat: `null` clears `destination` and `activeHours`; checklist items
 * without an id get one from `newId`, and `enabled` defaults to true.
 */
export const patchHeartbeat = (
  current: HeartbeatConfig,
  body: unknown,
  newId: () => string,
): Either.Either<HeartbeatConfig, string> =>
  Either.flatMap(Either.mapLeft(decodeHeartbeatPatch(body), describe), (input) => {
    const candidate: Record<string, unknown> = { ...current }
    for (const key of heartbeatFields) {
      if (!Object.hasOwn(input, key)) continue
      // Only destination and activeHours can be null: the schema refuses the others.
      if (input[key] === null) delete candidate[key]
      else candidate[key] = input[key]
    }
    if (input.tasks !== undefined) {
      candidate.tasks = input.tasks.map((item) => ({ enabled: true, ...item, id: item.id ?? newId() }))
    }
    return Either.mapLeft(decodeHeartbeat(candidate), (error) => describe(error, "heartbeat"))
  })

import { Either, ParseResult, Schema } from "effect"
import { type HeartbeatConfig, HeartbeatConfig as HeartbeatSchema, ScheduledTaskConfig } from "../config/ConfigModel.js"
import { isJsonObject, type JsonObject } from "../config/MergePatch.js"
import { describeParseError } from "../validation/Problems.js"

/**
 * Turning API bodies into the stored task and heartbeat: pure, so the rules of SPEC "Schedule"
 * (null clears, cron and runAt exclude each other, read-only fields ignored) read in one place.
 * Each function answers the new value or the owner-facing message of the first problems.
 */

const taskFields = ["name", "prompt", "cron", "runAt", "enabled", "timezone", "maxRuns", "destination"] as const
const readOnlyTaskFields = new Set(["id", "nextRun", "isRunning"])
const requiredTaskFields = new Set(["name", "prompt"])

const heartbeatFields = ["enabled", "cron", "tasks", "destination", "activeHours"] as const
const readOnlyHeartbeatFields = new Set(["nextRun", "isRunning"])
const clearableHeartbeatFields = new Set(["destination", "activeHours"])

const describe = (error: ParseResult.ParseError, root: string) => describeParseError(error, root).join("; ")

const decodeTask = Schema.decodeUnknownEither(ScheduledTaskConfig, { errors: "all", onExcessProperty: "error" })
const decodeHeartbeat = Schema.decodeUnknownEither(HeartbeatSchema, { errors: "all", onExcessProperty: "error" })

/** Unknown keys of `body`, read-only ones aside. */
const unknownKeys = (body: JsonObject, known: ReadonlyArray<string>, readOnly: ReadonlySet<string>) =>
  Object.keys(body).filter((key) => !known.includes(key) && !readOnly.has(key))

const checkBody = (body: unknown, known: ReadonlyArray<string>, readOnly: ReadonlySet<string>) => {
  if (!isJsonObject(body)) return Either.left("request body must be a JSON object")
  const unknown = unknownKeys(body, known, readOnly)
  if (unknown.length > 0) {
    return Either.left(
      `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${known.join(", ")})`,
    )
  }
  return Either.right(body)
}

const finishTask = (candidate: Record<string, unknown>) =>
  Either.mapLeft(decodeTask(candidate), (error) => describe(error, "task"))

/** POST /api/schedule: the stored task with the given id; `null` counts as absent. */
export const createTask = (id: string, body: unknown): Either.Either<ScheduledTaskConfig, string> =>
  Either.flatMap(checkBody(body, taskFields, readOnlyTaskFields), (input) => {
    const candidate: Record<string, unknown> = { id }
    for (const key of taskFields) if (input[key] !== undefined && input[key] !== null) candidate[key] = input[key]
    if (candidate.cron !== undefined && candidate.runAt !== undefined) {
      return Either.left("set exactly one of cron (recurring) and runAt (one time), not both")
    }
    if (candidate.cron === undefined && candidate.runAt === undefined) {
      return Either.left(
        "cron or runAt is required: set exactly one (cron for a recurring task, runAt for a one-time task)",
      )
    }
    return finishTask(candidate)
  })

/**
 * PATCH /api/schedule/:id: `null` clears an optional field; a `cron` clears `runAt` and a
 * `runAt` clears `cron` (and `maxRuns`, which only recurring tasks have).
 */
export const patchTask = (current: ScheduledTaskConfig, body: unknown): Either.Either<ScheduledTaskConfig, string> =>
  Either.flatMap(checkBody(body, taskFields, readOnlyTaskFields), (input) => {
    const candidate: Record<string, unknown> = { ...current }
    const setsCron = input.cron !== undefined && input.cron !== null
    const setsRunAt = input.runAt !== undefined && input.runAt !== null
    if (setsCron && setsRunAt) return Either.left("set exactly one of cron (recurring) and runAt (one time), not both")
    for (const key of taskFields) {
      if (!Object.hasOwn(input, key)) continue
      const value = input[key]
      if (value === null) {
        if (requiredTaskFields.has(key)) return Either.left(`${key} is required and cannot be cleared`)
        delete candidate[key]
      } else if (value !== undefined) {
        candidate[key] = value
      }
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
  Either.flatMap(checkBody(body, heartbeatFields, readOnlyHeartbeatFields), (input) => {
    const candidate: Record<string, unknown> = { ...current }
    for (const key of heartbeatFields) {
      if (!Object.hasOwn(input, key)) continue
      const value = input[key]
      if (value === null) {
        if (!clearableHeartbeatFields.has(key)) return Either.left(`${key} cannot be null`)
        delete candidate[key]
      } else if (value !== undefined) {
        candidate[key] = value
      }
    }
    if (Array.isArray(candidate.tasks)) {
      candidate.tasks = candidate.tasks.map((item: unknown) =>
        isJsonObject(item) ? { enabled: true, ...item, ...(item.id === undefined ? { id: newId() } : {}) } : item,
      )
    }
    return Either.mapLeft(decodeHeartbeat(candidate), (error) => describe(error, "heartbeat"))
  })
